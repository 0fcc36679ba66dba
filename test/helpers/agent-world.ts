import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import type { Detection, Soundscape } from '../../src/wire/types.js';
import { AlertsComponent } from '../../src/daemon/alerts.js';
import { Housekeeping } from '../../src/daemon/housekeeping.js';
import { startDaemon, type DaemonOptions, type RunningDaemon } from '../../src/daemon/index.js';
import { IngestComponent } from '../../src/daemon/ingest.js';
import { UploaderComponent } from '../../src/daemon/uploader.js';
import type { AlertMonitor } from '../../src/alerts/monitor.js';
import type { LinkPolicy } from '../../src/upload/link-policy.js';
import type { Uploader } from '../../src/upload/uploader.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '@station-agent/emulator';
import { openQueue, queueCounts, type QueueCounts } from '../../src/queue/index.js';
import { deepMerge } from './merge.js';
import { realFixture, tempDir } from './paths.js';
import { until } from './until.js';

export const TOKEN = 'station-token-0123456789abcdef';
export const REAL_LABELS = realFixture('birdnet-analyzer_labels_V2.4', 'BirdNET_GLOBAL_6K_V2.4_Labels.txt');

/**
 * A station and its service on one machine: the real local service on a free
 * port, an input folder, a data folder and a config file, and the agent started
 * in-process through the same `startDaemon` that `station-agent run` uses.
 */
/** The running daemon with the parts tests drive and watch, found through its components and context. */
export interface TestDaemon extends RunningDaemon {
  uploader: Uploader;
  link: LinkPolicy;
  /** The alert monitor, when `alerts.webhook.url` is set. */
  alerts: AlertMonitor | null;
  /** Resolves when ingest has handed over everything it has seen so far. */
  ingestIdle(): Promise<void>;
  /** Runs the periodic sweeps now: stale incoming WAVs, then spool retention and analyzer files after upload. */
  housekeeping(): Promise<void>;
}

export function testDaemon(daemon: RunningDaemon): TestDaemon {
  const ingest = daemon.component(IngestComponent);
  return Object.assign(daemon, {
    uploader: daemon.component(UploaderComponent).uploader,
    link: daemon.context.link,
    alerts: daemon.component(AlertsComponent).monitor,
    ingestIdle: () => ingest.pairing.idle(),
    housekeeping: async () => {
      await ingest.pairing.sweepIncoming();
      await daemon.component(Housekeeping).run();
    },
  });
}

export interface AgentWorld {
  root: string;
  inputDir: string;
  dataDir: string;
  configPath: string;
  emulator: RunningEmulator;
  client: ServiceClient;
  /** Every line the agent logged (JSON). */
  logLines: string[];
  daemon: TestDaemon | null;
  /** `extra`: daemon options beyond the config file (an injected wall clock, the alert check interval). */
  startAgent(extra?: Pick<DaemonOptions, 'now' | 'alertCheckMs' | 'auditCheckMs'>): Promise<TestDaemon>;
  stopAgent(): Promise<void>;
  counts(): QueueCounts;
  /** Waits until nothing waits in the queue (all uploaded, failed or dropped). */
  waitDrained(timeoutMs?: number): Promise<QueueCounts>;
  allDetections(): Promise<Detection[]>;
  allSoundscapes(): Promise<Soundscape[]>;
  close(): Promise<void>;
}

export interface WorldOptions {
  emulator?: Partial<EmulatorOptions>;
  /** Merged into the config file. */
  config?: Record<string, unknown>;
  /** The input folder, e.g. on another filesystem than the spool (default: inside the world's temp dir). */
  inputDir?: string;
}

export async function createAgentWorld(options: WorldOptions = {}): Promise<AgentWorld> {
  const { dir: root, cleanup } = tempDir('agent-world-');
  const inputDir = options.inputDir ?? path.join(root, 'input');
  const dataDir = path.join(root, 'data');
  mkdirSync(inputDir, { recursive: true });
  const emulator = await startEmulator({
    port: 0,
    stations: [{ token: TOKEN, name: 'Test station', lat: 52.52, lon: 13.4, timezone: 'Europe/Berlin' }],
    labels: REAL_LABELS,
    ...options.emulator,
  });
  const configPath = path.join(root, 'config.json');
  const base = {
    service: { baseUrl: emulator.url, token: TOKEN, timeoutMs: 5_000 },
    station: { latitude: 52.52, longitude: 13.4, timezone: 'Europe/Berlin' },
    input: { dir: inputDir, format: 'auto', minConfidence: 0.1, labels: REAL_LABELS, stableMs: 200, rescanIntervalSec: 10 },
    dataDir,
    upload: { concurrency: 4, backoffBaseMs: 100, backoffMaxMs: 2_000, probeIntervalSec: 1 },
    clock: { requireSync: 'never' },
    log: { level: 'debug' },
  };
  writeFileSync(configPath, JSON.stringify(deepMerge(base, options.config ?? {}), null, 2), { mode: 0o600 });
  const client = createServiceClient({ baseUrl: emulator.url, token: TOKEN });
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logLines.push(line);
      cb();
    },
  });

  const world: AgentWorld = {
    root,
    inputDir,
    dataDir,
    configPath,
    emulator,
    client,
    logLines,
    daemon: null,
    async startAgent(extra = {}) {
      const logger = pino({ level: 'debug' }, sink);
      world.daemon = testDaemon(await startDaemon({ path: configPath, env: {}, logger, ...extra }));
      return world.daemon;
    },
    async stopAgent() {
      await world.daemon?.stop();
      world.daemon = null;
    },
    counts() {
      const q = world.daemon?.queue ?? openQueue(path.join(dataDir, 'queue.db'));
      try {
        return queueCounts(q);
      } finally {
        if (!world.daemon) q.close();
      }
    },
    async waitDrained(timeoutMs = 20_000) {
      const waiting = (s: Record<string, number>) => (s.pending ?? 0) + (s.sending ?? 0) + (s.unknown ?? 0);
      const total = (s: Record<string, number>) => Object.values(s).reduce((a, b) => a + b, 0);
      return until(
        'the queue drained',
        () => {
          const c = world.counts();
          return waiting(c.recordings) + waiting(c.detections) === 0 && total(c.detections) > 0 ? c : undefined;
        },
        timeoutMs,
        () => JSON.stringify(world.counts()),
      );
    },
    async allDetections() {
      const out: Detection[] = [];
      let cursor: number | undefined;
      for (;;) {
        const res = await client.listDetections({ limit: 100, cursor, from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' });
        out.push(...res.detections);
        if (res.detections.length < 100) return out;
        cursor = res.detections[res.detections.length - 1].id;
      }
    },
    async allSoundscapes() {
      const out: Soundscape[] = [];
      let cursor: number | undefined;
      for (;;) {
        const res = await client.listSoundscapes({ limit: 100, cursor, from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' });
        out.push(...res.soundscapes);
        if (res.soundscapes.length < 100) return out;
        cursor = res.soundscapes[res.soundscapes.length - 1].id;
      }
    },
    async close() {
      await world.stopAgent();
      await client.close();
      await emulator.close();
      cleanup();
    },
  };
  return world;
}
