import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, CLI_MAIN, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { VERSION } from '../../src/version.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { writeWav } from '../helpers/wav-writer.js';
import { openTestQueue, seed } from './seed.js';

/**
 * What a command loads: the CLI run as a process with a module-resolution hook
 * (test/helpers/module-trace) that writes down every module it resolves. On a Pi,
 * module loading is where start-up seconds and idle megabytes go, so a command or a
 * quiet daemon must not load what it does not use.
 */
const TRACE_HOOK = path.join(REPO_ROOT, 'test/helpers/module-trace/register.mjs');
const AFTER_FLAG_HOOK = path.join(REPO_ROOT, 'test/helpers/module-trace/after-flag.cjs');
const TOKEN = 'lazy-loading-token-7c2e91';

interface Loaded {
  /** npm packages, by name. */
  packages: Set<string>;
  /** The agent's own modules, relative to dist/: tsc's modules as such, a chunk of the bundle as the modules it holds. */
  own: Set<string>;
  /** Node's modules (`node:http2`), whoever loaded them. */
  builtins: Set<string>;
}

/** What the trace holds (lines of `<pid> <url>`), of process `pid` only when given, else of every other process when `except` is given. */
function readTrace(file: string, only: { pid?: number; except?: number } = {}): Loaded {
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  const packages = new Set<string>();
  const own = new Set<string>();
  const builtins = new Set<string>();
  const dist = `${path.join(REPO_ROOT, 'dist')}/`;
  const bundle = `${dist}bundle/`;
  const chunks = JSON.parse(readFileSync(`${bundle}modules.json`, 'utf8')) as Record<string, string[]>;
  for (const line of lines) {
    const [pid, url] = line.split(' ', 2) as [string, string];
    if (only.pid !== undefined && Number(pid) !== only.pid) continue;
    if (only.except !== undefined && Number(pid) === only.except) continue;
    if (url.startsWith('node:')) builtins.add(url);
    if (!url.startsWith('file:')) continue;
    const file = decodeURIComponent(new URL(url).pathname);
    const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (pkg) packages.add(pkg[1]);
    else if (file.startsWith(bundle)) {
      const modules = chunks[file.slice(bundle.length)];
      if (modules === undefined) throw new Error(`${file} is not in the bundle's modules.json`);
      for (const module of modules) {
        // A package the bundle carries (scripts/bundle.mjs, BUNDLED_PACKAGES) counts as loaded with its chunk.
        const bundled = /^\.\.\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(module);
        if (bundled) packages.add(bundled[1]);
        else own.add(module);
      }
    } else if (file.startsWith(dist)) own.add(file.slice(dist.length));
  }
  return { packages, own, builtins };
}

/**
 * `station-agent run --config <config>` as a process with `env` over a short environment of
 * its own, until its output holds `line` (at most 60 s), then stopped with SIGTERM. Its pid.
 */
async function runDaemonUntil(config: string, env: Record<string, string>, line: string): Promise<number> {
  const child = spawn(process.execPath, [CLI_MAIN, 'run', '--config', config], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`the daemon's output held no "${line}" within 60 s:\n${out}`)), 60_000);
      const check = () => {
        if (!out.includes(line)) return;
        clearTimeout(deadline);
        resolve();
      };
      child.stdout.on('data', check);
      void exited.then(() => reject(new Error(`the daemon exited:\n${out}`)));
    });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  return child.pid!;
}

function traceEnv(file: string): Record<string, string> {
  return { NODE_OPTIONS: `--import=${TRACE_HOOK}`, MODULE_TRACE_FILE: file };
}

/** Packages no read-only command needs: the logger, MQTT, the encoder, metrics (and undici, which nothing at run time loads). */
const DAEMON_ONLY = ['undici', 'pino', 'mqtt', 'libflacjs', 'p-queue', 'prom-client'];

describe('lazy loading', () => {
  let tmp: ReturnType<typeof tempDir>;
  let config: string;

  /**
   * A config named `name` that no load has cached yet, with its own data and input folders:
   * a command started on it validates it (in a child process). Nothing listens on port 9
   * (discard): a daemon's config sync just retries.
   */
  const configFile = (name: string, extra: Record<string, unknown> = {}): string => {
    mkdirSync(path.join(tmp.dir, `${name}-data`), { recursive: true });
    return writeCliConfig(path.join(tmp.dir, `${name}.json`), {
      baseUrl: 'http://127.0.0.1:9',
      token: TOKEN,
      dataDir: path.join(tmp.dir, `${name}-data`),
      inputDir: path.join(tmp.dir, `${name}-input`),
      extra: { clock: { requireSync: 'never' }, ...extra },
    });
  };

  /**
   * A fresh config `name` (with `extra`) with a 3 s recording named in local time (06:15 in
   * the configs' zone, Europe/Berlin) and its result file of one detection in its input folder.
   */
  const configWithRecording = (name: string, extra: Record<string, unknown> = {}): string => {
    const config = configFile(name, extra);
    const base = '2026-07-01-birdnet-06:15:00';
    const input = path.join(tmp.dir, `${name}-input`);
    writeWav(path.join(input, `${base}.wav`), { frames: 48_000 * 3 });
    writeFileSync(
      path.join(input, `${base}.BirdNET.results.csv`),
      'Start (s),End (s),Scientific name,Common name,Confidence,File\n0.0,3.0,Pica pica,Eurasian Magpie,0.91,x.wav\n',
    );
    return config;
  };

  /**
   * A daemon on {@link configWithRecording} in a system whose zone is the configs'
   * (`TZ=Europe/Berlin`, a station's /etc/localtime link), until its output holds `line`: what
   * it loaded. The service is absent.
   */
  const berlinDaemonLoads = async (name: string, line: string, extra: Record<string, unknown> = {}): Promise<Loaded> => {
    const config = configWithRecording(name, extra);
    const trace = path.join(tmp.dir, `${name}.trace`);
    const pid = await runDaemonUntil(config, { TZ: 'Europe/Berlin', ...traceEnv(trace) }, line);
    return readTrace(trace, { pid });
  };

  beforeAll(async () => {
    await buildCli();
    tmp = tempDir('cli-lazy-');
    const dataDir = path.join(tmp.dir, 'data');
    // Nothing listens on port 9 (discard): the daemon's config sync just retries.
    config = writeCliConfig(path.join(tmp.dir, 'config.json'), {
      baseUrl: 'http://127.0.0.1:9',
      token: TOKEN,
      dataDir,
      inputDir: path.join(tmp.dir, 'input'),
      extra: { clock: { requireSync: 'never' } },
    });
    const q = openTestQueue(dataDir);
    seed(q, 20, 5);
    q.close();
  }, 180_000);

  afterAll(() => tmp?.cleanup());

  it('--version loads commander and nothing else from node_modules, and no command definition', async () => {
    const trace = path.join(tmp.dir, 'version.trace');
    const result = await runCli(['--version'], { env: traceEnv(trace) });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(VERSION);
    const loaded = readTrace(trace);
    expect(loaded.own.has('cli/main.js')).toBe(true);
    expect([...loaded.packages]).toEqual(['commander']);
    expect([...loaded.own].filter((f) => f.startsWith('cli/commands/') && f !== 'cli/commands/index.js')).toEqual([]);
  });

  it('status --json --offline on a queue loads neither the daemon packages nor the upload stage', async () => {
    const trace = path.join(tmp.dir, 'status.trace');
    const result = await runCli(['status', '--json', '--offline', '--config', config], { env: traceEnv(trace) });
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson<{ queue: { detections: { pending: number } } }>(result).queue.detections.pending).toBe(100);
    const loaded = readTrace(trace);
    expect(loaded.packages.has('better-sqlite3')).toBe(true);
    for (const pkg of DAEMON_ONLY) expect(loaded.packages.has(pkg), pkg).toBe(false);
    // Neither the pipeline's stages nor the API client: status reads the queue file only.
    expect([...loaded.own].filter((f) => /^(ingest|audio|alerts|mqtt|metrics)\/|^api\/(client|transport)\.js$|^upload\/uploader\.js$/.test(f))).toEqual([]);
  });

  it('status with the config unchanged since the last load skips the schema (zod): the validated config is cached in dataDir', async () => {
    const first = path.join(tmp.dir, 'status-first.trace');
    const second = path.join(tmp.dir, 'status-second.trace');
    // The first load validates (and writes the cache unless an earlier test did); the second finds it.
    expect((await runCli(['status', '--json', '--offline', '--config', config], { env: traceEnv(first) })).code).toBe(0);
    const result = await runCli(['status', '--json', '--offline', '--config', config], { env: traceEnv(second) });
    expect(result.code, result.stderr).toBe(0);
    const loaded = readTrace(second);
    expect(loaded.packages.has('zod'), 'zod').toBe(false);
    expect([...loaded.own].filter((f) => /^config\/(validate|schema|schema-keys|issues)\.js$/.test(f))).toEqual([]);
  });

  it('ingest with a config no load has cached validates it in a child process: the backfill itself loads no zod', async () => {
    const fresh = configFile('ingest');
    const table = path.join(tmp.dir, 'ingest-input', '20250601_000000.BirdNET.selection.table.txt');
    writeFileSync(table, 'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tCommon Name\tScientific Name\tConfidence\n1\tSpectrogram 1\t1\t0\t3\tEurasian Magpie\tPica pica\t0.9\n');
    const trace = path.join(tmp.dir, 'ingest.trace');
    const result = await runCli(['ingest', table, '--config', fresh, '--json'], { env: traceEnv(trace) });
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson<{ detections: number }>(result).detections).toBe(1);
    // The CLI's process resolves the first module: the trace's first pid is its own.
    const pid = Number(readFileSync(trace, 'utf8').split(' ', 1)[0]);
    const loaded = readTrace(trace, { pid });
    expect(loaded.own.has('ingest/backfill.js')).toBe(true);
    expect(loaded.packages.has('zod'), 'zod').toBe(false);
    expect(readTrace(trace, { except: pid }).own.has('config/validate-child.js')).toBe(true);
  });

  it('an idle daemon without a webhook, MQTT, metrics or upload windows loads no alerts, MQTT client, metrics server, FLAC encoder, zod or luxon, even on its first start', async () => {
    // A config no earlier load has cached: the daemon validates it in a child process
    // (config/validate-apart.ts) and never loads zod or the schema itself.
    // The data folder exists, as systemd's StateDirectory= makes it, so the cache can be written.
    const fresh = configFile('fresh');
    const trace = path.join(tmp.dir, 'run.trace');
    const pid = await runDaemonUntil(fresh, { TZ: 'UTC', ...traceEnv(trace) }, 'station-agent running');
    const loaded = readTrace(trace, { pid });
    expect(loaded.own.has('daemon/index.js')).toBe(true);
    // luxon only where a time is read or written in a zone (system/luxon.ts): a recording, a window, a budget.
    for (const pkg of ['mqtt', 'libflacjs', 'prom-client', 'zod', 'luxon']) expect(loaded.packages.has(pkg), pkg).toBe(false);
    // The service client speaks through node:http (api/pool.ts): no undici (its WebAssembly
    // parser cost 9 MB of idle VmRSS), and no node:https for an http origin.
    expect(loaded.own.has('api/pool.js')).toBe(true);
    expect(loaded.builtins.has('node:http')).toBe(true);
    expect(loaded.packages.has('undici'), 'undici').toBe(false);
    for (const m of ['https', 'tls', 'http2']) expect(loaded.builtins.has(`node:${m}`), `node:${m}`).toBe(false);
    expect([...loaded.own].filter((f) => /^(alerts\/(monitor|webhook)\.js$|mqtt\/(index|publisher|connection)\.js$|metrics\/|config\/(validate|schema|schema-keys)\.js$)/.test(f))).toEqual([]);
    expect(loaded.builtins.has('node:net'), 'the trace sees Node modules').toBe(true);
    // Of the CLI, only `run`'s own definition: no other command's module graph lives in the daemon.
    expect([...loaded.own].filter((f) => /^cli\//.test(f) && !/^cli\/(main|program|exit-codes|format\/json|commands\/(index|run|support\/options))\.js$/.test(f))).toEqual([]);
    // The validation happened, in the child, and its result is cached for the next start.
    const validator = readTrace(trace, { except: pid });
    expect(validator.own.has('config/validate-child.js')).toBe(true);
    expect(validator.packages.has('zod')).toBe(true);
    expect(existsSync(path.join(tmp.dir, 'fresh-data', 'config-cache.json'))).toBe(true);
  }, 90_000);

  it('a daemon turns TurboFan off before its modules load, and loads no Node module after the flag through a recording (system/v8-flags.ts)', async () => {
    // Each would be compiled from its source: the flag changed the hash of Node's code cache.
    const config = configWithRecording('flags');
    const file = path.join(tmp.dir, 'after-flag.json');
    // Encoded, posted, refused (no service): the recording's whole path has run.
    // In the station's zone, as a station runs (another zone loads luxon: system/v8-flags.ts).
    await runDaemonUntil(config, { TZ: 'Europe/Berlin', NODE_OPTIONS: `--require=${AFTER_FLAG_HOOK}`, AFTER_FLAG_FILE: file }, 'upload failed, will retry');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([]);
    // A command of the CLI sets no flag.
    const status = await runCli(['status', '--json', '--offline', '--config', config], { env: { NODE_OPTIONS: `--require=${AFTER_FLAG_HOOK}`, AFTER_FLAG_FILE: file } });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toBeNull();
  }, 90_000);

  it("a daemon whose station.timezone is the system's queues a recording named in local time without luxon (system/zone.ts)", async () => {
    // The result file is read, its rows queued.
    const loaded = await berlinDaemonLoads('zone', 'recording queued');
    expect(loaded.own.has('ingest/recording-time.js')).toBe(true);
    expect(loaded.own.has('system/zone.js')).toBe(true);
    expect(loaded.packages.has('luxon'), 'luxon').toBe(false);
    // Read in Berlin's summer time: 06:15 local is 04:15 UTC, sent with +02:00.
    const queue = openTestQueue(path.join(tmp.dir, 'zone-data'));
    try {
      const row = queue.db.prepare('SELECT timestamp FROM detections').get() as { timestamp: string };
      expect(row.timestamp).toBe('2026-07-01T06:15:00.000+02:00');
    } finally {
      queue.close();
    }
  }, 90_000);

  it("a daemon with upload windows and a data budget in the system's zone judges them without luxon (system/zone.ts)", async () => {
    // The whole day as a window still asks for the local time at every pass, and a budget
    // for the local day; a failed upload (no service) says the pass got past both.
    const loaded = await berlinDaemonLoads('link', 'upload failed, will retry', { upload: { windows: ['00:00-24:00'], audioBytesPerDay: 100_000_000 } });
    expect(loaded.own.has('upload/windows.js')).toBe(true);
    expect(loaded.own.has('upload/data-budget.js')).toBe(true);
    expect(loaded.packages.has('luxon'), 'luxon').toBe(false);
  }, 90_000);
});
