import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { enqueueRecording } from '../../src/queue/index.js';
import { RUNTIME_META_KEY, type RuntimeSnapshot } from '../../src/runtime/snapshot.js';
import { html, startServer, startSilentTcp } from '../api/test-server.js';
import { buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { trickleForTest } from '../helpers/trickle-server.js';
import { detection, fail, openTestQueue, seed, setMeta, upload } from './seed.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { addRealRecording } from '../helpers/real-recording.js';
import { startAgentProcess } from '../reliability/support/agent-process.js';

const TOKEN = 'status-test-token-5f3a9c';

describe('station-agent status', () => {
  let service: RunningEmulator;
  let tmp: ReturnType<typeof tempDir>;
  let dataDir: string;
  let config: string;

  beforeAll(async () => {
    await buildCli();
    service = await startEmulator({ tokens: [TOKEN] });
    tmp = tempDir('cli-status-');
    dataDir = path.join(tmp.dir, 'data');
    config = writeCliConfig(path.join(tmp.dir, 'config.json'), { baseUrl: service.url, token: TOKEN, dataDir, inputDir: path.join(tmp.dir, 'input') });
    const q = openTestQueue(dataDir);
    const { recordingIds, detectionIds } = seed(q, 3, 2);
    upload(q, 'recording', recordingIds[0], 3_100_000_001);
    fail(q, 'recording', recordingIds[1]);
    upload(q, 'detection', detectionIds[0], 3_200_000_001);
    fail(q, 'detection', detectionIds[1]);
    setMeta(q, 'lastSuccessAt', Date.parse('2025-05-01T04:10:00Z'));
    // What a daemon stopped while paused on a refused token leaves (the last test below
    // makes a real daemon leave it): its last snapshot. pid 2^22 + 1 is never alive.
    setMeta(q, RUNTIME_META_KEY, {
      pid: 4_194_305,
      startedAt: Date.parse('2025-05-01T04:00:00Z'),
      updatedAt: Date.parse('2025-05-01T04:30:00Z'),
      uploader: { paused: [{ reason: 'token-rejected', message: 'HTTP 403: Access denied', since: Date.parse('2025-05-01T04:20:00Z') }] },
    } as RuntimeSnapshot);
    setMeta(q, 'station', {
      record: {
        id: 42,
        name: 'Garden',
        type: 'analyzerpi',
        timezone: 'Europe/Berlin',
        latestDetectionAt: null,
        latestValidDetectionAt: null,
        locationPrivacy: false,
        minConfidence: 0.7,
        minProbability: 0,
        minScore: 0,
        minHumanConfidence: 0.04,
      },
      syncedAt: Date.parse('2025-05-01T04:00:00Z'),
    });
    q.close();
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    tmp?.cleanup();
  });

  it('prints queue counts per state for soundscapes and detections, and probes the service (--json)', async () => {
    const result = await runCli(['status', '--json', '--config', config]);
    expect(result.code).toBe(0);
    const report = parseJson(result);
    expect(report.queue.exists).toBe(true);
    expect(report.queue.soundscapes).toEqual({ pending: 1, sending: 0, unknown: 0, uploaded: 1, failed: 1, dropped: 0 });
    expect(report.queue.detections).toEqual({ pending: 4, sending: 0, unknown: 0, uploaded: 1, failed: 1, dropped: 0 });
    expect(report.queue.oldestPendingAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(report.uploads.lastSuccessAt).toBe('2025-05-01T04:10:00.000Z');
    // No daemon: the pauses it was in when it last wrote its snapshot.
    expect(report.uploads.paused).toEqual([
      { scope: null, reason: 'token-rejected', message: 'HTTP 403: Access denied', since: '2025-05-01T04:20:00.000Z', asOf: '2025-05-01T04:30:00.000Z' },
    ]);
    expect(report.uploads.circuit).toBeNull();
    expect(report.service).toMatchObject({ checked: true, reachable: true, tokenValid: true, status: 200 });
    expect(report.station.record).toMatchObject({ id: 42, name: 'Garden' });
    expect(report.daemon.state).toBe('stopped');
    // The uploaded recording keeps its spool file until retention removes it.
    expect(report.disk.spoolFiles).toBe(3);
    expect(report.disk.freeBytes).toBeGreaterThan(0);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });

  const shm = '/dev/shm';
  const otherFs = existsSync(shm) && statSync(shm).dev !== statSync(process.env.TMPDIR ?? '/tmp').dev;
  it.skipIf(!otherFs)('says what an analyzer folder on a RAM disk costs the card a day, and the input.ramDiskAudio choice', async () => {
    const ram = mkdtempSync(path.join(shm, 'cli-status-'));
    try {
      for (const choice of ['copy', 'keep'] as const) {
        const cfg = writeCliConfig(path.join(tmp.dir, `ram-${choice}.json`), {
          baseUrl: service.url,
          token: TOKEN,
          dataDir: path.join(tmp.dir, `data-ram-${choice}`),
          inputDir: ram,
          extra: { input: { dir: ram, ramDiskAudio: choice } },
        });
        const json = parseJson(await runCli(['status', '--json', '--offline', '--config', cfg]));
        expect(json.disk.audioCopy).toMatchObject({ ramDiskAudio: choice, why: expect.stringMatching(/on a RAM disk/) });
        expect(json.disk.audioCopy.bytesPerDay).toBeGreaterThan(8e9);
        const text = (await runCli(['status', '--offline', '--config', cfg])).stdout;
        if (choice === 'copy') expect(text).toMatch(/audio copied:?\s+.* a day .*onto the card \(input\.ramDiskAudio copy; keep leaves it on its file system until upload\)/);
        else expect(text).toMatch(/audio kept:?\s+on its file system until upload \(input\.ramDiskAudio keep; a power cut loses the soundscapes not yet uploaded\)/);
      }
    } finally {
      rmSync(ram, { recursive: true, force: true });
    }
  });

  it('does not say "token accepted" plainly while the daemon is paused on a refused token', async () => {
    // The stored pause says token-rejected; the configured token (probed now) is accepted.
    const text = await runCli(['status', '--config', config]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/paused:\s+token-rejected: HTTP 403: Access denied \(since 2025-05-01T04:20:00.000Z, as the daemon last reported at 2025-05-01T04:30:00.000Z\)/);
    expect(text.stdout).toMatch(/Service:.*the configured token is accepted, but the daemon was refused its token when it last ran/);
    expect(text.stdout).not.toMatch(/reachable, token accepted/);
  });

  it('reads the running daemon snapshot: circuit, pauses, watcher, clock, config sync', async () => {
    const now = Date.now();
    const snapshot: RuntimeSnapshot = {
      pid: process.pid,
      startedAt: now - 3_600_000,
      updatedAt: now - 5_000,
      uploader: {
        inFlight: 2,
        concurrencyLimit: 3,
        circuit: 'open',
        circuitRetryAt: now + 30_000,
        probes: 4,
        paused: [{ reason: 'soundscapes-rejected', message: 'HTTP 415: WAV is not accepted', since: now - 60_000 }],
        lastSuccessAt: now - 10_000,
        lastError: { message: 'connect ECONNREFUSED', code: 'ERR_NETWORK_BEFORE_SEND', at: now - 2_000 },
      },
      watcher: { ready: true, pending: 3, dir: '/input' },
      clock: 'synchronized',
      disk: { freeBytes: 1e9, spoolBytes: 200_000, low: false },
      configSync: { state: 'retrying', at: now - 1_000, error: 'HTTP 503', attempts: 2 },
    };
    const q = openTestQueue(dataDir);
    setMeta(q, RUNTIME_META_KEY, snapshot);
    q.close();
    try {
      const json = parseJson(await runCli(['status', '--json', '--offline', '--config', config]));
      expect(json.daemon).toMatchObject({ state: 'running', pid: process.pid });
      expect(json.uploads).toMatchObject({ circuit: 'open', inFlight: 2, concurrencyLimit: 3, probes: 4 });
      expect(json.uploads.paused).toEqual([expect.objectContaining({ reason: 'soundscapes-rejected' })]);
      expect(json.uploads.lastError).toMatchObject({ code: 'ERR_NETWORK_BEFORE_SEND' });
      expect(json.clock).toEqual({ state: 'synchronized', source: 'daemon' });
      expect(json.configSync).toMatchObject({ state: 'retrying', attempts: 2 });
      expect(json.watcher).toEqual({ ready: true, pending: 3, dir: '/input' });
      expect(json.service).toBeNull();

      const text = await runCli(['status', '--offline', '--config', config]);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/Daemon:\s+running \(pid \d+/);
      expect(text.stdout).toMatch(/soundscapes\s+1\s+0\s+0\s+1\s+1\s+0/);
      expect(text.stdout).toMatch(/detections\s+4\s+0\s+0\s+1\s+1\s+0/);
      expect(text.stdout).toContain('circuit open');
      expect(text.stdout).toContain('soundscapes-rejected');
      expect(text.stdout).toContain('not checked (--offline)');
      // Piped stdout: no colour codes.
      expect(text.stdout).not.toContain('\u001b[');
    } finally {
      const q2 = openTestQueue(dataDir);
      q2.db.prepare('DELETE FROM meta WHERE key = ?').run(RUNTIME_META_KEY);
      q2.close();
    }
  });

  it('says the daemon is not running when the snapshot belongs to a dead process', async () => {
    const q = openTestQueue(dataDir);
    // pid 2^22 + 1 is above Linux's pid_max: never alive.
    setMeta(q, RUNTIME_META_KEY, { pid: 4_194_305, startedAt: Date.now() - 1000, updatedAt: Date.now() } as RuntimeSnapshot);
    q.close();
    try {
      const json = parseJson(await runCli(['status', '--json', '--offline', '--config', config]));
      expect(json.daemon.state).toBe('stopped');
      expect(json.daemon.detail).toContain('not running');
      expect(json.uploads.circuit).toBeNull();
    } finally {
      const q2 = openTestQueue(dataDir);
      q2.db.prepare('DELETE FROM meta WHERE key = ?').run(RUNTIME_META_KEY);
      q2.close();
    }
  });

  it('says the daemon is not responding when its process lives but its snapshot is stale', async () => {
    const q = openTestQueue(dataDir);
    setMeta(q, RUNTIME_META_KEY, { pid: process.pid, startedAt: Date.now() - 7_200_000, updatedAt: Date.now() - 600_000 } as RuntimeSnapshot);
    q.close();
    try {
      const json = parseJson(await runCli(['status', '--json', '--offline', '--config', config]));
      expect(json.daemon.state).toBe('not-responding');
      expect(json.daemon.detail).toMatch(/snapshot is \d+s old/);
    } finally {
      const q2 = openTestQueue(dataDir);
      q2.db.prepare('DELETE FROM meta WHERE key = ?').run(RUNTIME_META_KEY);
      q2.close();
    }
  });

  it('reports a refused token without failing', async () => {
    const result = await runCli(['status', '--json', '--config', config], { env: { STATION_AGENT_TOKEN: 'not-a-station-token' } });
    expect(result.code).toBe(0);
    expect(parseJson(result).service).toMatchObject({ reachable: true, tokenValid: false, status: 403 });
    expect(result.stdout + result.stderr).not.toContain('not-a-station-token');
  });

  it('reports an unreachable service', async () => {
    const dead = await startEmulator({ tokens: [TOKEN] });
    const url = dead.url;
    await dead.close();
    const result = await runCli(['status', '--json', '--config', config, '--timeout', '1000'], { env: { STATION_AGENT_BASE_URL: url } });
    expect(result.code).toBe(0);
    expect(parseJson(result).service).toMatchObject({ checked: true, reachable: false, tokenValid: null });
  });

  it('tells a failing service (HTML 502 from a proxy) from a refused token, and a silent one from both', async () => {
    const proxy = await startServer(html(502, '<html><body>Bad Gateway</body></html>'));
    try {
      const result = await runCli(['status', '--json', '--config', config], { env: { STATION_AGENT_BASE_URL: proxy.url } });
      expect(result.code).toBe(0);
      const service = parseJson(result).service;
      expect(service).toMatchObject({ reachable: true, tokenValid: null, status: 502, error: { code: 'ERR_HTTP_STATUS' } });
      expect(service.error.message).toContain('HTML page instead of JSON');
      expect(service.error.message).toContain('/stations/<redacted>/stats');
      expect(proxy.requests[0].url).toBe(`/api/v1/stations/${TOKEN}/stats`);
    } finally {
      await proxy.close();
    }
    const silent = await startSilentTcp();
    try {
      const result = await runCli(['status', '--json', '--timeout', '500', '--config', config], { env: { STATION_AGENT_BASE_URL: `http://127.0.0.1:${silent.port}` } });
      expect(parseJson(result).service).toMatchObject({ reachable: false, tokenValid: null, error: { code: 'ERR_OUTCOME_UNKNOWN', message: expect.stringContaining('no answer within 500 ms') } });
    } finally {
      await silent.close();
    }
  });

  it('a service whose answer trickles (headers, or the body after a 200) is reported within --timeout', async () => {
    for (const mode of ['headers', 'body'] as const) {
      // One byte every 100 ms: the socket's idle timeout never fires, only the probe's total limit.
      const trickle = await trickleForTest(mode);
      const result = await runCli(['status', '--json', '--timeout', '500', '--config', config], { env: { STATION_AGENT_BASE_URL: trickle.url } });
      expect(result.code, result.stderr).toBe(0);
      expect(parseJson(result).service, mode).toMatchObject({ reachable: false, error: { message: expect.stringContaining('no answer within 500 ms') } });
      expect(trickle.requests, mode).toHaveLength(1);
    }
  });

  it('shows an empty queue without creating one when the daemon never ran', async () => {
    const fresh = path.join(tmp.dir, 'fresh-data');
    const result = await runCli(['status', '--json', '--offline', '--config', config], { env: { STATION_AGENT_DATA_DIR: fresh } });
    expect(result.code).toBe(0);
    const json = parseJson(result);
    expect(json.queue.exists).toBe(false);
    expect(json.queue.detections.pending).toBe(0);
    expect(existsSync(fresh)).toBe(false);
  });

  it('names as the oldest waiting item the first one queued, and an old item again once `queue retry` sends it back', async () => {
    const own = path.join(tmp.dir, 'oldest-data');
    const env = { STATION_AGENT_DATA_DIR: own };
    const at = Date.parse('2025-05-01T04:00:00Z');
    const q = openTestQueue(own);
    enqueueRecording(q, { recording: null, detections: [detection(1, 0)] }, { now: at });
    enqueueRecording(q, { recording: null, detections: [detection(2, 0)] }, { now: at + 60_000 });
    // Queued later by a clock that was behind (a boot before NTP): it has not waited longest.
    enqueueRecording(q, { recording: null, detections: [detection(3, 0)] }, { now: at - 30 * 86_400_000 });
    fail(q, 'detection', 1);
    q.close();

    const oldest = async () =>
      parseJson<{ queue: { oldestPendingAt: string | null } }>(await runCli(['status', '--json', '--offline', '--config', config], { env })).queue.oldestPendingAt;
    expect(await oldest()).toBe('2025-05-01T04:01:00.000Z');
    expect((await runCli(['queue', 'retry', 'd1', '--config', config], { env })).code).toBe(0);
    expect(await oldest()).toBe('2025-05-01T04:00:00.000Z');
  });

  it('names the result files nothing was queued from, with why (a result without any recording start)', async () => {
    const own = path.join(tmp.dir, 'file-errors');
    const input = path.join(own, 'input');
    mkdirSync(input, { recursive: true });
    // No audio beside it, no date in its name: the agent never stamps it with the time it read it.
    writeFileSync(path.join(input, 'undated.BirdNET.results.csv'), 'Start (s),End (s),Scientific name,Common name,Confidence\n0,3,Turdus merula,Eurasian Blackbird,0.9\n');
    const cfg = writeCliConfig(path.join(own, 'config.json'), { baseUrl: service.url, token: TOKEN, dataDir: path.join(own, 'data'), inputDir: input });
    const ingest = await runCli(['ingest', input, '--config', cfg]);
    expect(ingest.code, ingest.stdout + ingest.stderr).toBe(1);
    const json = parseJson(await runCli(['status', '--json', '--offline', '--config', cfg]));
    expect(json.queue.filesInError.count).toBe(1);
    expect(json.queue.filesInError.latest[0].file).toBe(path.join(input, 'undated.BirdNET.results.csv'));
    expect(json.queue.filesInError.latest[0].error).toContain('no recording start');
    const text = await runCli(['status', '--offline', '--config', cfg]);
    expect(text.stdout).toContain('result files in error: 1');
    expect(text.stdout).toContain('undated.BirdNET.results.csv: no recording start');
  });

  it('shows the queue when the token file cannot be read, saying so by its key, never its content or path', async () => {
    // As root a mode of 000 reads anyway: a folder and a FIFO in the token file's place cannot be read by anyone.
    const fifo = path.join(tmp.dir, `${TOKEN}-fifo`);
    execFileSync('mkfifo', [fifo]);
    const folder = path.join(tmp.dir, `${TOKEN}-folder`);
    mkdirSync(folder);
    for (const tokenFile of [fifo, folder]) {
      const cfg = writeCliConfig(path.join(tmp.dir, 'token-file-unreadable.json'), {
        baseUrl: service.url,
        dataDir,
        inputDir: path.join(tmp.dir, 'input'),
        extra: { service: { baseUrl: service.url, tokenFile } },
      });
      const json = await runCli(['status', '--json', '--config', cfg]);
      expect(json.code, json.stderr).toBe(0);
      const report = parseJson(json);
      expect(report.queue.detections).toMatchObject({ pending: 4, uploaded: 1, failed: 1 });
      expect(report.token.problem).toMatch(/^service\.tokenFile: the file is (a FIFO .*|a folder), not a (regular )?file$/);
      expect(report.service).toMatchObject({ checked: false, skipped: `the station token could not be read: ${report.token.problem}` });
      const text = await runCli(['status', '--offline', '--config', cfg]);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toMatch(/Token: +service\.tokenFile: the file is/);
      for (const out of [json.stdout, json.stderr, text.stdout, text.stderr]) expect(out).not.toContain(TOKEN);
    }
  });

  it('exits 3 naming the key when the config is invalid', async () => {
    const bad = writeCliConfig(path.join(tmp.dir, 'bad.json'), {
      baseUrl: service.url,
      dataDir,
      inputDir: path.join(tmp.dir, 'input'),
      extra: { upload: { concurrency: 99 } },
    });
    const result = await runCli(['status', '--config', bad]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('upload.concurrency');
    expect(result.stdout).toBe('');
  });

  it('explains itself in --help, with examples and exit codes', async () => {
    const result = await runCli(['status', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Examples:');
    expect(result.stdout).toContain('--offline');
  });
});

describe('station-agent status after a daemon stopped while paused', () => {
  let world: AgentWorld | undefined;
  afterAll(async () => {
    await world?.close();
  });

  it('shows the pause a real daemon was in when it stopped: the service refused its token (403)', async () => {
    await buildCli();
    world = await createAgentWorld({ config: { service: { token: 'not-this-station-token-7d1e' } } });
    addRealRecording(world.inputDir, 'rec');
    const agent = startAgentProcess(world.configPath);
    try {
      await agent.waitForLine(/uploads paused: .*403/, 60_000);
    } finally {
      await agent.kill('SIGTERM');
    }
    expect((await agent.exited).code).toBe(0);

    const json = parseJson(await runCli(['status', '--json', '--offline', '--config', world.configPath]));
    expect(json.daemon.state).toBe('stopped');
    expect(json.uploads.paused).toEqual([
      expect.objectContaining({ reason: 'token-rejected', message: expect.stringContaining('403'), asOf: json.daemon.updatedAt }),
    ]);
    const text = await runCli(['status', '--offline', '--config', world.configPath]);
    expect(text.stdout).toMatch(/paused:\s+token-rejected: .*403.*as the daemon last reported at/);
    expect(text.stdout + text.stderr).not.toContain('not-this-station-token-7d1e');
  }, 120_000);
});
