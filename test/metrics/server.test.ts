import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/index.js';
import { parseListenAddress, startMetricsServer, MetricsError, type MetricsServer } from '../../src/metrics/index.js';
import {
  claimDetections,
  claimRecordings,
  enqueueRecording,
  markFailed,
  markUnknown,
  markUploaded,
  setMeta,
  type Queue,
} from '../../src/queue/index.js';
import type { RuntimeSnapshot } from '../../src/runtime/snapshot.js';
import { detection, recording, tempQueue } from '../queue/helpers.js';
import { parseSamples, valueOf } from './prometheus-text.js';

const silent = createLogger({ level: 'silent' });

function snapshotOf(
  overrides: { paused?: RuntimeSnapshot['uploader']['paused']; circuit?: RuntimeSnapshot['uploader']['circuit']; ready?: boolean; lastSuccessAt?: number | null; disk?: RuntimeSnapshot['disk'] } = {},
): RuntimeSnapshot {
  const now = Date.now();
  return {
    pid: process.pid,
    startedAt: now,
    updatedAt: now,
    uploader: {
      inFlight: 2,
      concurrencyLimit: 4,
      circuit: overrides.circuit ?? 'closed',
      circuitRetryAt: null,
      probes: 0,
      paused: overrides.paused ?? [],
      lastSuccessAt: overrides.lastSuccessAt ?? null,
      lastError: null,
    },
    watcher: { ready: overrides.ready ?? true, pending: 0, dir: '/analyzer/out' },
    clock: 'synchronized',
    disk: overrides.disk ?? { freeBytes: 1e9, spoolBytes: 0, low: false },
    configSync: { state: 'synced', at: now },
  };
}

/**
 * Recordings: 1 pending, 1 sending, 1 unknown, 1 uploaded, 1 failed.
 * Detections without recording: 2 pending, 1 uploaded, 1 failed.
 */
function fillQueue(q: Queue): void {
  for (let n = 0; n < 5; n++) enqueueRecording(q, { recording: recording(n), detections: [] });
  const claimOne = () => claimRecordings(q, { limit: 1, order: 'oldest', now: Date.now() + 1 })[0].id;
  markUploaded(q, 'recording', claimOne(), 9001);
  markFailed(q, 'recording', claimOne(), { error: 'HTTP 422', code: 'ERR_HTTP_STATUS' });
  markUnknown(q, 'recording', claimOne(), { error: 'timeout', code: 'ERR_OUTCOME_UNKNOWN', nextAttemptAt: Date.now() + 3_600_000 });
  claimOne(); // stays sending

  for (let i = 0; i < 4; i++) enqueueRecording(q, { recording: null, detections: [detection('standalone', i)] });
  const claimDetection = () => claimDetections(q, { limit: 1, order: 'oldest', now: Date.now() + 1 })[0].id;
  markUploaded(q, 'detection', claimDetection(), 7001);
  markFailed(q, 'detection', claimDetection(), { error: 'HTTP 422', code: 'ERR_HTTP_STATUS' });
}

async function get(url: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

describe('metrics server', () => {
  let queue: ReturnType<typeof tempQueue>;
  let server: MetricsServer | undefined;
  let snapshot: () => RuntimeSnapshot | null;

  beforeEach(() => {
    queue = tempQueue();
    snapshot = () => snapshotOf();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    queue.cleanup();
  });

  const start = async () => {
    server = await startMetricsServer({ listen: '127.0.0.1:0', queue: queue.q, snapshot: () => snapshot(), log: silent });
    return server;
  };

  it('serves the queue depth per kind and state, read from the queue file on scrape', async () => {
    const s = await start();
    const empty = parseSamples((await get(`${s.url}/metrics`)).text);
    expect(valueOf(empty, 'station_agent_queue_items', { kind: 'recording', state: 'pending' })).toBe(0);

    fillQueue(queue.q);
    const res = await get(`${s.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain/);
    const samples = parseSamples(res.text);
    const items = (kind: string, state: string) => valueOf(samples, 'station_agent_queue_items', { kind, state });
    expect([items('recording', 'pending'), items('recording', 'sending'), items('recording', 'unknown')]).toEqual([1, 1, 1]);
    expect([items('recording', 'uploaded'), items('recording', 'failed'), items('recording', 'dropped')]).toEqual([1, 1, 0]);
    expect([items('detection', 'pending'), items('detection', 'uploaded'), items('detection', 'failed')]).toEqual([2, 1, 1]);
    expect(valueOf(samples, 'station_agent_queue_oldest_waiting_seconds')).toBeGreaterThanOrEqual(0);
    // Default process metrics, in the private registry.
    expect(valueOf(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts upload outcomes, latency and bytes fed through its observer', async () => {
    const s = await start();
    s.observer.outcome?.('recording', 'uploaded', 1_500, 480_000);
    s.observer.outcome?.('recording', 'retry', 250);
    s.observer.outcome?.('detection', 'uploaded', 40);
    s.observer.outcome?.('detection', 'uploaded', 60);
    s.observer.outcome?.('detection', 'failed', 30);

    const samples = parseSamples((await get(`${s.url}/metrics`)).text);
    const uploads = (kind: string, outcome: string) => valueOf(samples, 'station_agent_uploads_total', { kind, outcome });
    expect(uploads('recording', 'uploaded')).toBe(1);
    expect(uploads('recording', 'retry')).toBe(1);
    expect(uploads('recording', 'unknown')).toBe(0);
    expect(uploads('detection', 'uploaded')).toBe(2);
    expect(uploads('detection', 'failed')).toBe(1);
    expect(valueOf(samples, 'station_agent_upload_duration_seconds_count', { kind: 'recording' })).toBe(2);
    expect(valueOf(samples, 'station_agent_upload_duration_seconds_sum', { kind: 'recording' })).toBeCloseTo(1.75);
    expect(valueOf(samples, 'station_agent_upload_duration_seconds_bucket', { kind: 'detection', le: '0.05' })).toBe(2);
    expect(valueOf(samples, 'station_agent_upload_duration_seconds_count', { kind: 'detection' })).toBe(3);
    expect(valueOf(samples, 'station_agent_uploaded_bytes_total', { kind: 'recording' })).toBe(480_000);
    expect(valueOf(samples, 'station_agent_uploaded_bytes_total', { kind: 'detection' })).toBe(0);
  });

  it('exports pause state per reason, the circuit state and the last success from the daemon snapshot', async () => {
    snapshot = () =>
      snapshotOf({
        circuit: 'open',
        lastSuccessAt: 1_700_000_000_000,
        paused: [{ reason: 'token-rejected', message: 'HTTP 403', since: Date.now() }],
      });
    const s = await start();
    const samples = parseSamples((await get(`${s.url}/metrics`)).text);
    expect(valueOf(samples, 'station_agent_uploads_paused', { reason: 'token-rejected' })).toBe(1);
    expect(valueOf(samples, 'station_agent_uploads_paused', { reason: 'soundscape-format-rejected' })).toBe(0);
    expect(valueOf(samples, 'station_agent_uploads_paused', { reason: 'clock-unsynchronized' })).toBe(0);
    expect(valueOf(samples, 'station_agent_circuit_state', { state: 'open' })).toBe(1);
    expect(valueOf(samples, 'station_agent_circuit_state', { state: 'closed' })).toBe(0);
    expect(valueOf(samples, 'station_agent_circuit_state', { state: 'half-open' })).toBe(0);
    expect(valueOf(samples, 'station_agent_last_success_timestamp_seconds')).toBe(1_700_000_000);
    expect(valueOf(samples, 'station_agent_uploads_in_flight')).toBe(2);
    expect(valueOf(samples, 'station_agent_watcher_ready')).toBe(1);
  });

  it('exports the daemon’s disk verdict: whether free space on dataDir is below disk.minFreeMb', async () => {
    snapshot = () => snapshotOf({ disk: { freeBytes: 150 * 1024 * 1024, spoolBytes: 0, low: true } });
    const s = await start();
    expect(valueOf(parseSamples((await get(`${s.url}/metrics`)).text), 'station_agent_disk_low')).toBe(1);
    snapshot = () => snapshotOf({ disk: { freeBytes: 1e9, spoolBytes: 0, low: false } });
    expect(valueOf(parseSamples((await get(`${s.url}/metrics`)).text), 'station_agent_disk_low')).toBe(0);
  });

  it('takes the last success stored in the queue when this run has none yet, and leaves daemon series out while it starts', async () => {
    setMeta(queue.q, 'lastSuccessAt', 1_600_000_000_000);
    snapshot = () => {
      throw new ReferenceError('snapshot is not defined yet');
    };
    const s = await start();
    const samples = parseSamples((await get(`${s.url}/metrics`)).text);
    expect(valueOf(samples, 'station_agent_last_success_timestamp_seconds')).toBe(1_600_000_000);
    expect(samples.some((x) => x.name === 'station_agent_circuit_state')).toBe(false);
    expect(valueOf(samples, 'station_agent_queue_items', { kind: 'detection', state: 'pending' })).toBe(0);
  });

  it('answers /healthz with 200 and unknown paths with 404', async () => {
    const s = await start();
    const health = await get(`${s.url}/healthz`);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.text)).toMatchObject({ status: 'ok', pid: process.pid });
    expect((await get(`${s.url}/nothing`)).status).toBe(404);
    expect((await fetch(`${s.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('is ready when the watcher is ready, the queue answers and the token is accepted', async () => {
    const s = await start();
    const res = await get(`${s.url}/readyz`);
    expect(res.status).toBe(200);
    const body = JSON.parse(res.text) as { ready: boolean; reasons: string[]; checks: Record<string, { ok: boolean }> };
    expect(body).toMatchObject({ ready: true, reasons: [] });
    expect(body.checks.watcher.ok && body.checks.queue.ok && body.checks.token.ok).toBe(true);
  });

  it('is not ready (503, saying why) while the first scan runs, after the token was rejected, or with the queue closed', async () => {
    const s = await start();
    const readyz = async () => {
      const res = await get(`${s.url}/readyz`);
      return { status: res.status, body: JSON.parse(res.text) as { ready: boolean; reasons: string[] } };
    };

    snapshot = () => snapshotOf({ ready: false });
    let r = await readyz();
    expect(r.status).toBe(503);
    expect(r.body.ready).toBe(false);
    expect(r.body.reasons).toEqual(['the first scan of /analyzer/out is not finished']);

    snapshot = () => snapshotOf({ paused: [{ reason: 'token-rejected', message: 'HTTP 403 from POST /api/v1/stations/<redacted>/detections', since: 0 }] });
    r = await readyz();
    expect(r.status).toBe(503);
    expect(r.body.reasons).toHaveLength(1);
    expect(r.body.reasons[0]).toContain('uploads are paused');
    expect(r.body.reasons[0]).toContain('HTTP 403');

    snapshot = () => null;
    r = await readyz();
    expect(r.status).toBe(503);
    expect(r.body.reasons[0]).toContain('still starting');

    snapshot = () => snapshotOf();
    queue.q.close();
    r = await readyz();
    expect(r.status).toBe(503);
    expect(r.body.reasons).toHaveLength(1);
    expect(r.body.reasons[0]).toMatch(/queue database .*queue\.db does not answer/);
    // The scrape still works without the queue series.
    const samples = parseSamples((await get(`${s.url}/metrics`)).text);
    expect(samples.some((x) => x.name === 'station_agent_queue_items')).toBe(false);
  });

  it('binds 127.0.0.1 when only a port is given, and names metrics.listen when the port is taken', async () => {
    const s = await startMetricsServer({ listen: '0', queue: queue.q, snapshot: () => snapshot(), log: silent });
    server = s;
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await get(`${s.url}/healthz`)).status).toBe(200);

    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const attempt = startMetricsServer({ listen: `127.0.0.1:${port}`, queue: queue.q, snapshot: () => snapshot(), log: silent });
      await expect(attempt).rejects.toBeInstanceOf(MetricsError);
      await expect(attempt).rejects.toThrow(`metrics.listen 127.0.0.1:${port}`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('stops listening on close', async () => {
    const s = await start();
    await s.close();
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
  });
});

describe('parseListenAddress', () => {
  it.each([
    ['127.0.0.1:9464', { host: '127.0.0.1', port: 9464 }],
    ['0.0.0.0:9464', { host: '0.0.0.0', port: 9464 }],
    ['[::1]:9464', { host: '::1', port: 9464 }],
    ['localhost:1', { host: 'localhost', port: 1 }],
    ['9464', { host: '127.0.0.1', port: 9464 }],
    [':9464', { host: '127.0.0.1', port: 9464 }],
  ])('%s', (value, expected) => {
    expect(parseListenAddress(value)).toEqual(expected);
  });

  it.each(['', 'host', 'host:', '127.0.0.1:70000', 'http://127.0.0.1:9464'])('refuses %j naming the key', (value) => {
    expect(() => parseListenAddress(value)).toThrow(/metrics\.listen must be host:port/);
  });
});
