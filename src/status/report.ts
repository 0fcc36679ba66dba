import type { Config } from '../config/index.js';
import type { PauseState, Queue, StateCounts } from '../queue/index.js';
import type { StationConfigRecord } from '../wire/types.js';
import { freeBytes } from './disk.js';
import { queueDbPath, queueExists } from './queue-file.js';
import type { ServiceProbe } from './probe.js';
import {
  RUNTIME_META_KEY,
  daemonLiveness,
  parseRuntimeSnapshot,
  type ClockState,
  type DaemonState,
  type RuntimeSnapshot,
} from './runtime.js';

/**
 * The status report: the queue (counts per state, oldest waiting item) read from
 * the database, the daemon's runtime snapshot (uploader, circuit, watcher, clock,
 * config sync) when a daemon wrote one, and a live service probe unless offline.
 * Without a running daemon the queue and the durable meta values (last success,
 * pause reasons, last station record) are still shown.
 *
 * Instants are ISO 8601 (UTC) strings. Keys are only ever added.
 */

export interface StatusReport {
  generatedAt: string;
  configFile: string | null;
  daemon: {
    state: DaemonState;
    detail: string;
    pid: number | null;
    startedAt: string | null;
    updatedAt: string | null;
  };
  queue: {
    file: string;
    /** False before the daemon (or an ingest) first created the queue. */
    exists: boolean;
    /** The queue's `recordings` table: the audio uploaded as soundscapes. */
    soundscapes: StateCounts;
    detections: StateCounts;
    oldestPendingAt: string | null;
    oldestPendingAgeSec: number | null;
  };
  uploads: {
    lastSuccessAt: string | null;
    lastError: { message: string; code: string; at: string | null } | null;
    paused: { scope: string | null; reason: string; message: string; since: string | null }[];
    /** null without a running daemon. */
    circuit: RuntimeSnapshot['uploader']['circuit'] | null;
    circuitRetryAt: string | null;
    inFlight: number | null;
    concurrencyLimit: number | null;
    probes: number | null;
  };
  service: ServiceProbe | null;
  disk: {
    dataDir: string;
    freeBytes: number | null;
    minFreeBytes: number;
    low: boolean | null;
    spoolFiles: number;
    spoolBytes: number;
  };
  /** From the running daemon, else asked of the system now (timesyncd, timedatectl). */
  clock: { state: ClockState; source: 'daemon' | 'system' };
  configSync: { state: string; at: string | null; error: string | null; attempts: number | null } | null;
  station: { record: StationConfigRecord; syncedAt: string | null } | null;
  watcher: { ready: boolean; pending: number; dir: string } | null;
}

export interface CollectStatusOptions {
  config: Config;
  configFile: string | null;
  /** Skip the live service probe. */
  offline?: boolean;
  probeTimeoutMs?: number;
  now?: number;
}

const EMPTY_COUNTS: StateCounts = { pending: 0, sending: 0, unknown: 0, uploaded: 0, failed: 0, dropped: 0 };

export async function collectStatus(options: CollectStatusOptions): Promise<StatusReport> {
  const { config } = options;
  const probe = options.offline
    ? null
    : import('./probe.js').then(({ probeService }) => probeService(config, { timeoutMs: options.probeTimeoutMs }));
  const free = freeBytes(config.dataDir);
  const systemClock = import('../system/clock.js').then(({ clockSyncState }) => clockSyncState({ timeoutMs: 1_000 }));

  const stored = queueExists(config.dataDir) ? await readQueue(config) : null;
  const now = options.now ?? Date.now();
  const runtime = stored?.runtime ?? null;
  const liveness = daemonLiveness(runtime, now);
  // A stopped daemon's snapshot is history: its circuit and in-flight count say nothing now.
  const live = liveness.state === 'running' ? runtime : null;
  const freeNow = (await free) ?? null;
  const minFreeBytes = config.disk.minFreeMb * 1024 * 1024;

  return {
    generatedAt: iso(now)!,
    configFile: options.configFile,
    daemon: {
      state: liveness.state,
      detail: liveness.detail,
      pid: runtime?.pid ?? null,
      startedAt: iso(runtime?.startedAt),
      updatedAt: iso(runtime?.updatedAt),
    },
    queue: {
      file: queueDbPath(config.dataDir),
      exists: stored !== null,
      soundscapes: stored?.counts.recordings ?? { ...EMPTY_COUNTS },
      detections: stored?.counts.detections ?? { ...EMPTY_COUNTS },
      oldestPendingAt: iso(stored?.counts.oldestPendingAt),
      oldestPendingAgeSec: stored?.counts.oldestPendingAt != null ? Math.max(0, Math.round((now - stored.counts.oldestPendingAt) / 1000)) : null,
    },
    uploads: uploads(runtime, live, stored),
    service: probe ? await probe : null,
    disk: {
      dataDir: config.dataDir,
      freeBytes: freeNow,
      minFreeBytes,
      low: freeNow === null ? null : freeNow < minFreeBytes,
      spoolFiles: stored?.spool.files ?? 0,
      spoolBytes: stored?.spool.bytes ?? 0,
    },
    clock: live ? { state: live.clock, source: 'daemon' } : { state: await systemClock, source: 'system' },
    configSync: runtime
      ? {
          state: runtime.configSync.state,
          at: iso(runtime.configSync.at),
          error: runtime.configSync.error ?? null,
          attempts: runtime.configSync.attempts ?? null,
        }
      : null,
    station: stored?.station ?? null,
    watcher: live ? { ...live.watcher } : null,
  };
}

interface StoredState {
  counts: { recordings: StateCounts; detections: StateCounts; oldestPendingAt: number | null };
  spool: { files: number; bytes: number };
  runtime: RuntimeSnapshot | null;
  pauseReasons: Partial<Record<string, PauseState>> | undefined;
  lastSuccessAt: number | undefined;
  station: { record: StationConfigRecord; syncedAt: string | null } | null;
}

async function readQueue(config: Config): Promise<StoredState> {
  // The four operations' own files, not the queue's index: `status` is the CLI's hot path
  // (the benchmark allows 200 ms) and the index loads every queue operation.
  const [{ openQueue }, { queueCounts }, { spoolUsage }, { getMeta }] = await Promise.all([
    import('../queue/db.js'),
    import('../queue/counts.js'),
    import('../queue/retention.js'),
    import('../queue/meta.js'),
  ]);
  const q: Queue = openQueue(queueDbPath(config.dataDir));
  try {
    return q.read(() => ({
      counts: queueCounts(q),
      spool: spoolUsage(q),
      runtime: parseRuntimeSnapshot(getMeta(q, RUNTIME_META_KEY)),
      pauseReasons: getMeta(q, 'pauseReasons'),
      lastSuccessAt: getMeta(q, 'lastSuccessAt'),
      station: readStation(getMeta(q, 'station')),
    }));
  } finally {
    q.close();
  }
}

/** The meta value `station` is `{ record, syncedAt }`; a bare record (older writers) is read too. */
export function readStation(value: unknown): { record: StationConfigRecord; syncedAt: string | null } | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.record === 'object' && v.record !== null) {
    return { record: v.record as StationConfigRecord, syncedAt: iso(typeof v.syncedAt === 'number' ? v.syncedAt : null) };
  }
  if (typeof v.id === 'number') return { record: v as unknown as StationConfigRecord, syncedAt: null };
  return null;
}

function uploads(runtime: RuntimeSnapshot | null, live: RuntimeSnapshot | null, stored: StoredState | null): StatusReport['uploads'] {
  const lastSuccess = Math.max(runtime?.uploader.lastSuccessAt ?? 0, stored?.lastSuccessAt ?? 0);
  const lastError = runtime?.uploader.lastError ?? null;
  const paused: StatusReport['uploads']['paused'] = live
    ? live.uploader.paused.map((p) => ({ scope: null, reason: p.reason, message: p.message, since: iso(p.since) }))
    : Object.entries(stored?.pauseReasons ?? {}).flatMap(([scope, p]) =>
        p ? [{ scope, reason: p.reason, message: p.message, since: iso(p.since) }] : [],
      );
  return {
    lastSuccessAt: lastSuccess > 0 ? iso(lastSuccess) : null,
    lastError: lastError ? { message: lastError.message, code: lastError.code, at: iso(lastError.at) } : null,
    paused,
    circuit: live?.uploader.circuit ?? null,
    circuitRetryAt: iso(live?.uploader.circuitRetryAt),
    inFlight: live?.uploader.inFlight ?? null,
    concurrencyLimit: live?.uploader.concurrencyLimit ?? null,
    probes: live?.uploader.probes ?? null,
  };
}

function iso(ms: number | null | undefined): string | null {
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}
