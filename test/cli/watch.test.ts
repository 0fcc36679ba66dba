import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { CLI_MAIN, buildCli, writeCliConfig } from '../helpers/cli.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { trickleForTest } from '../helpers/trickle-server.js';
import { until } from '../helpers/until.js';

/** `station-agent watch` as a process against the local service's GraphQL subscription. */

const TOKEN = 'watch-station-token';
const OTHER = 'watch-other-token';

interface Watcher {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number>;
}

function watch(args: string[]): Watcher {
  const child = spawn(process.execPath, [CLI_MAIN, 'watch', ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', TZ: 'UTC' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 128)));
  running.push(child);
  return { child, stdout: () => out, stderr: () => err, exited };
}


/** The watcher's output, for a failure message. */
const streams = (w: Watcher) => () => `stdout: ${w.stdout()}\nstderr: ${w.stderr()}`;

async function within<T>(what: string, promise: Promise<T>, watcher: Watcher): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}\nstdout: ${watcher.stdout()}\nstderr: ${watcher.stderr()}`)), 15_000);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const running: ChildProcessWithoutNullStreams[] = [];
let tmp: ReturnType<typeof tempDir>;
let service: RunningEmulator;
let config: string;
const db = () => path.join(tmp.dir, 'service.db');

async function post(token: string, fields: Record<string, unknown> = {}): Promise<number> {
  const response = await fetch(`${service.url}/api/v1/stations/${token}/detections`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      timestamp: new Date().toISOString(),
      scientificName: 'Turdus merula',
      commonName: 'Eurasian Blackbird',
      confidence: 0.9,
      ...fields,
    }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { detection: { id: number } }).detection.id;
}

const gid = (type: string, id: number) => Buffer.from(`${type}:${id}`).toString('base64');

beforeAll(async () => {
  await buildCli();
  tmp = tempDir('cli-watch-');
  service = await startEmulator({ db: db(), tokens: [TOKEN, OTHER] });
  config = writeCliConfig(path.join(tmp.dir, 'config.json'), {
    baseUrl: service.url,
    token: TOKEN,
    dataDir: path.join(tmp.dir, 'data'),
    inputDir: path.join(tmp.dir, 'input'),
  });
}, 180_000);

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

afterAll(async () => {
  await service?.close();
  tmp?.cleanup();
});

describe('station-agent watch', () => {
  test('--json prints the matching detections of this station, one JSON line each', async () => {
    const w = watch(['--json', '--count', '2', '--min-score', '5', '--config', config]);
    await until('the subscription', () => service.events.listenerCount('detection') === 1, 15_000, streams(w));
    await post(OTHER);
    await post(TOKEN, { confidence: 0.1 });
    await post(TOKEN, { scientificName: 'Erithacus rubecula', commonName: 'European Robin', confidence: 0.1 });
    const first = await post(TOKEN);
    const second = await post(TOKEN, { scientificName: 'Erithacus rubecula', commonName: 'European Robin' });
    expect(await within('watch to stop after 2 detections', w.exited, w)).toBe(0);
    const lines = w.stdout().trim().split('\n').map((l) => JSON.parse(l) as { id: string });
    expect(lines.map((d) => d.id)).toEqual([gid('Detection', first), gid('Detection', second)]);
    expect(lines[1]).toMatchObject({ species: { commonName: 'European Robin', scientificName: 'Erithacus rubecula' }, station: { name: 'Station 1' } });
    expect(w.stderr()).toMatch(/^watching detections of this station \(\d+\) \(Ctrl-C to stop\)\n$/);
    expect(w.stdout() + w.stderr()).not.toContain(TOKEN);
  }, 60_000);

  test('prints readable lines, filters by species name and every station', async () => {
    const w = watch(['--all-stations', '--species', 'Erithacus rubecula', '--count', '1', '--config', config]);
    await until('the subscription', () => service.events.listenerCount('detection') === 1, 15_000, streams(w));
    await post(OTHER);
    await post(OTHER, { scientificName: 'Erithacus rubecula', commonName: 'European Robin' });
    expect(await within('watch to stop', w.exited, w)).toBe(0);
    expect(w.stdout()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+00:00 {2}European Robin \(Erithacus rubecula\) {2}score \d+\.\d [a-z_]+ {2}confidence 0\.90 {2}Station 2\n$/);
    expect(w.stderr()).toContain('watching detections of all stations');
  }, 60_000);

  test('filters the service refuses are a usage error naming them', async () => {
    const w = watch(['--continent', 'Atlantis', '--all-stations', '--config', config]);
    expect(await within('watch to fail', w.exited, w)).toBe(2);
    expect(w.stderr()).toMatch(/the service refused the filters: continents\[0\]: "Atlantis" is not one of Africa/);
  }, 60_000);

  test('reconnects with backoff when the service goes away, and says so on stderr', async () => {
    const w = watch(['--json', '--count', '1', '--config', config]);
    await until('the subscription', () => service.events.listenerCount('detection') === 1, 15_000, streams(w));
    const port = service.port;
    await service.close();
    await until('the lost connection on stderr', () => /connection to .* lost/.test(w.stderr()) && /reconnecting in \d+\.\d s/.test(w.stderr()), 15_000, streams(w));
    service = await startEmulator({ db: db(), tokens: [TOKEN, OTHER], port });
    await until('the subscription again', () => service.events.listenerCount('detection') === 1, 15_000, streams(w));
    const id = await post(TOKEN);
    expect(await within('watch to stop', w.exited, w)).toBe(0);
    expect(JSON.parse(w.stdout()).id).toBe(gid('Detection', id));
    expect(w.stderr()).toContain('watch: reconnected (detections of the gap are not replayed)');
  }, 60_000);

  test('a service whose handshake answer trickles is given service.timeoutMs, then tried again', async () => {
    // One byte of the upgrade answer every 100 ms: a socket idle timeout never fires.
    const trickle = await trickleForTest('headers');
    const slow = writeCliConfig(path.join(tmp.dir, 'slow.json'), {
      baseUrl: trickle.url,
      token: TOKEN,
      dataDir: path.join(tmp.dir, 'slow-data'),
      inputDir: path.join(tmp.dir, 'input'),
      extra: { service: { timeoutMs: 1_000 } },
    });
    const w = watch(['--all-stations', '--config', slow]);
    await until('the limit and the retry on stderr', () => /reconnecting in \d+\.\d s \(attempt 1\)/.test(w.stderr()), 15_000, streams(w));
    expect(w.stderr()).toContain(`watch: no connection from ${trickle.url}/graphql within 1000 ms`);
    expect(trickle.requests[0]).toBe('GET /graphql HTTP/1.1');
    w.child.kill('SIGINT');
  }, 60_000);

  test('stops cleanly on SIGINT', async () => {
    const w = watch(['--config', config]);
    await until('the subscription', () => service.events.listenerCount('detection') === 1, 15_000, streams(w));
    w.child.kill('SIGINT');
    expect(await within('watch to stop', w.exited, w)).toBe(0);
    await until('the subscription to end', () => service.events.listenerCount('detection') === 0, 15_000, streams(w));
  }, 60_000);
});
