import type { Config } from '../config/schema.js';
import { redactUrl } from '../wire/redact.js';
import type { FileInError, ItemKind, LastAudit, Queue, StateCounts } from '../queue/index.js';
import { emptyCounts, type PolicyCounts } from '../policy/counts.js';
import type { StationConfigRecord } from '../wire/types.js';
import { freeBytesNear, isDiskLow, minFreeBytes } from '../system/disk.js';
import type { LinkPolicy } from '../upload/link-policy.js';
import type { BudgetDay } from '../upload/data-budget.js';
import { queueDbPath, queueExists } from './queue-file.js';
import type { ServiceProbe } from './probe.js';
import {
  RUNTIME_META_KEY,
  daemonLiveness,
  parseRuntimeSnapshot,
  type ClockState,
  type DaemonState,
  type RuntimeSnapshot,
} from '../runtime/snapshot.js';

/**
 * The status report: the queue (counts per state, oldest waiting item) read from
 * the database, the daemon's runtime snapshot (uploader, circuit, watcher, clock,
 * config sync) when a daemon wrote one, and a live service probe unless offline.
 * Without a running daemon the queue and the durable meta values (last success,
 * last station record) are still shown, and the pauses the daemon was in when it last
 * wrote its snapshot (a refused token stays refused across a stop).
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
    /**
     * Items kept back by a hold, per reason (e.g. `implausible-time`); counted in their
     * state above too (a hold does not change the state). Empty objects when none.
     */
    held: { soundscapes: Record<string, number>; detections: Record<string, number> };
    /**
     * Result files ingest could not take (no recording start, not a result file, too
     * large): nothing of them is queued. The latest few, newest first, with why.
     */
    filesInError: { count: number; latest: { file: string; error: string | null; at: string | null }[] };
  };
  uploads: {
    lastSuccessAt: string | null;
    lastError: { message: string; code: string; at: string | null } | null;
    /**
     * Why uploads are paused. Without a running daemon: the pauses it was in when it last
     * wrote its snapshot (`asOf` is then that time; null while the daemon runs).
     */
    paused: { scope: string | null; reason: string; message: string; since: string | null; asOf: string | null }[];
    /** null without a running daemon. */
    circuit: RuntimeSnapshot['uploader']['circuit'] | null;
    circuitRetryAt: string | null;
    inFlight: number | null;
    concurrencyLimit: number | null;
    probes: number | null;
  };
  service: ServiceProbe | null;
  /** The station token as this command could read it: `problem` names the key when its file could not be read (never the path or the content). */
  token: { problem: string | null };
  disk: {
    dataDir: string;
    freeBytes: number | null;
    minFreeBytes: number;
    low: boolean | null;
    spoolFiles: number;
    spoolBytes: number;
    /** The spool copies each recording's audio (no hard link across mounts): what it costs a day. */
    audioCopy: {
      why: string;
      bytesPerRecording: number;
      /** What copying costs a day (written only with `copy`, or while a kept RAM disk is half full). */
      bytesPerDay: number;
      estimated: boolean;
      /** The owner's choice, `input.ramDiskAudio`: copy onto the card, or keep on the analyzer's file system until upload. */
      ramDiskAudio: 'copy' | 'keep';
    } | null;
    /**
     * How the running daemon took the audio since its start, counted where it runs (in the
     * unit's mount namespace): hard-linked or held by reference (nothing written) or copied onto the card. null
     * without a running daemon; `audioCopy` above is then the estimate from this command's mounts.
     */
    audioTaken: { linked: number; referenced: number; copied: number; copiedBytes: number; lastCopyWhy: string | null; lastCopyAt: string | null; nearDir: string | null } | null;
  };
  /** From the running daemon, else asked of the system now (timesyncd, timedatectl). */
  clock: { state: ClockState; source: 'daemon' | 'system' };
  configSync: { state: string; at: string | null; error: string | null; attempts: number | null } | null;
  station: { record: StationConfigRecord; syncedAt: string | null } | null;
  watcher: { ready: boolean; pending: number; dir: string } | null;
  /** MQTT publishing (docs/MQTT.md); null while `mqtt.enabled` is false. */
  mqtt: {
    /** The broker URL, its password redacted. */
    broker: string | null;
    /** null without a running daemon. */
    connected: boolean | null;
    /** Detection messages the broker has not received yet. */
    pendingDetections: number;
    /** Updates (service ids after upload) not published yet. */
    pendingUpdates: number;
    lastPublishAt: string | null;
    lastError: { message: string; code: string; at: string | null } | null;
  } | null;
  /** What the station's policies kept back since the queue was created (privacy, filters). */
  policy: PolicyCounts;
  /** The daemon's last delivery audit (docs/OPERATOR.md, "Verified delivery"); null before the first. */
  delivery: (Pick<LastAudit, 'trigger' | 'from' | 'to' | 'missing' | 'altered' | 'foreign' | 'requeued' | 'findings'> & { at: string | null }) | null;
  /** Upload windows, the day's data budget and the bandwidth cap (from the config and the stored day's count). */
  link: {
    windows: string[];
    windowsAudioOnly: boolean;
    windowOpen: boolean;
    /** When the window next opens (when closed) or closes (when open); null without windows. */
    windowChangesAt: string | null;
    budget: { limit: number; usedToday: number; left: number; renewsAt: string | null } | null;
    capBytesPerSec: number | null;
    /** Audio bytes per second over the last 10 s; null without a running daemon. */
    rateBytesPerSec: number | null;
  };
}

export interface CollectStatusOptions {
  config: Config;
  configFile: string | null;
  /** Skip the live service probe. */
  offline?: boolean;
  probeTimeoutMs?: number;
  now?: number;
  /** Why the token file could not be read (config/load.ts `tokenProblem`): shown, and the probe is not sent. */
  tokenProblem?: string | null;
}

const EMPTY_COUNTS: StateCounts = { pending: 0, sending: 0, unknown: 0, uploaded: 0, failed: 0, dropped: 0 };

export async function collectStatus(options: CollectStatusOptions): Promise<StatusReport> {
  const { config } = options;
  const probe = options.offline
    ? null
    : import('./probe.js').then(({ probeService }) => probeService(config, { timeoutMs: options.probeTimeoutMs, tokenProblem: options.tokenProblem }));
  const free = freeBytesNear(config.dataDir);
  const systemClock = import('../system/clock.js').then(({ clockSyncState }) => clockSyncState({ timeoutMs: 1_000 }));
  // Loaded while the queue is read, not at import: `status` should pay for the upload
  // stage's link policy (windows, budget, pacing streams) only once it reports on it.
  const linkPolicy = import('../upload/link-policy.js');

  const audioCopy = import('../system/audio-copy-cost.js')
    .then((m) => m.audioCopyCost(config.input.dir, config.dataDir, null, { analyzerKeepsAudio: config.input.format === 'results' }))
    .then((c) =>
      c.copies ? { why: c.why!, bytesPerRecording: c.bytesPerRecording, bytesPerDay: c.bytesPerDay, estimated: c.estimated, ramDiskAudio: config.input.ramDiskAudio } : null,
    );
  const stored = queueExists(config.dataDir) ? await readQueue(config) : null;
  const now = options.now ?? Date.now();
  const runtime = stored?.runtime ?? null;
  const liveness = daemonLiveness(runtime, now);
  // A stopped daemon's snapshot is history: its circuit and in-flight count say nothing now.
  const live = liveness.state === 'running' ? runtime : null;
  const freeNow = (await free) ?? null;
  const minFree = minFreeBytes(config.disk.minFreeMb);

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
      held: { soundscapes: stored?.held.recording ?? {}, detections: stored?.held.detection ?? {} },
      filesInError: {
        count: stored?.filesInError.count ?? 0,
        latest: (stored?.filesInError.latest ?? []).map((f) => ({ file: f.path, error: f.detail, at: iso(f.at) })),
      },
    },
    uploads: uploads(runtime, live, stored),
    service: probe ? await probe : null,
    token: { problem: options.tokenProblem ?? null },
    disk: {
      dataDir: config.dataDir,
      freeBytes: freeNow,
      minFreeBytes: minFree,
      low: freeNow === null ? null : isDiskLow(freeNow, config.disk.minFreeMb),
      spoolFiles: stored?.spool.files ?? 0,
      spoolBytes: stored?.spool.bytes ?? 0,
      audioCopy: await audioCopy,
      audioTaken: live?.audio ? { ...live.audio, lastCopyAt: iso(live.audio.lastCopyAt) } : null,
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
    mqtt: config.mqtt.enabled ? mqttStatus(config, live, stored) : null,
    policy: stored?.policy ?? emptyCounts(),
    delivery: stored?.audit
      ? (({ at, trigger, from, to, missing, altered, foreign, requeued, findings }) => ({ at: iso(at), trigger, from, to, missing, altered, foreign, requeued, findings }))(stored.audit)
      : null,
    link: linkReport((await linkPolicy).LinkPolicy, config, stored?.audioBudget, live, now),
  };
}

function mqttStatus(config: Config, live: RuntimeSnapshot | null, stored: StoredState | null): StatusReport['mqtt'] {
  const m = live?.mqtt ?? null;
  return {
    broker: m?.broker ?? (config.mqtt.url ? redactUrl(config.mqtt.url) : null),
    connected: m ? m.connected : null,
    pendingDetections: stored?.mqttOutbox?.detections ?? 0,
    pendingUpdates: stored?.mqttOutbox?.updates ?? 0,
    lastPublishAt: iso(m?.lastPublishAt),
    lastError: m?.lastError ? { message: m.lastError.message, code: m.lastError.code, at: iso(m.lastError.at) } : null,
  };
}

function linkReport(
  Policy: typeof LinkPolicy,
  config: Config,
  stored: BudgetDay | undefined,
  live: RuntimeSnapshot | null,
  now: number,
): StatusReport['link'] {
  const u = config.upload;
  const policy = new Policy(
    { windows: u.windows, windowsAudioOnly: u.windowsAudioOnly, audioBytesPerSec: u.audioBytesPerSec, audioBytesPerDay: u.audioBytesPerDay, zone: config.station.timezone },
    { load: () => stored, save: () => {} },
    () => now,
  );
  const s = policy.status(now);
  return {
    windows: s.windows,
    windowsAudioOnly: s.windowsAudioOnly,
    windowOpen: s.windowOpen,
    windowChangesAt: iso(s.windowChangesAt),
    budget: s.budget ? { ...s.budget, renewsAt: iso(s.budget.renewsAt) } : null,
    capBytesPerSec: s.capBytesPerSec,
    rateBytesPerSec: live?.link?.rateBytesPerSec ?? null,
  };
}

interface StoredState {
  counts: { recordings: StateCounts; detections: StateCounts; oldestPendingAt: number | null };
  spool: { files: number; bytes: number };
  held: Record<ItemKind, Record<string, number>>;
  filesInError: { count: number; latest: FileInError[] };
  runtime: RuntimeSnapshot | null;
  lastSuccessAt: number | undefined;
  station: { record: StationConfigRecord; syncedAt: string | null } | null;
  mqttOutbox: { detections: number; updates: number } | null;
  policy: PolicyCounts;
  audioBudget: BudgetDay | undefined;
  audit: LastAudit | undefined;
}

async function readQueue(config: Config): Promise<StoredState> {
  // The operations' own files, not the queue's index: `status` is the CLI's hot path
  // (the benchmark allows 200 ms) and the index loads every queue operation.
  const [{ openQueue }, { queueCounts }, { spoolUsage }, { getMeta }, { readPolicyCounts }, { holdCounts }, { filesInError }, outbox] = await Promise.all([
    import('../queue/db.js'),
    import('../queue/counts.js'),
    import('../queue/retention.js'),
    import('../queue/meta.js'),
    import('../policy/counts.js'),
    import('../queue/hold-counts.js'),
    import('../queue/ingested-files.js'),
    config.mqtt.enabled ? import('../queue/mqtt-outbox-counts.js') : null,
  ]);
  const q: Queue = openQueue(queueDbPath(config.dataDir));
  try {
    return q.read(() => ({
      counts: queueCounts(q),
      spool: spoolUsage(q),
      held: holdCounts(q),
      filesInError: filesInError(q),
      runtime: parseRuntimeSnapshot(getMeta(q, RUNTIME_META_KEY)),
      lastSuccessAt: getMeta(q, 'lastSuccessAt'),
      station: readStation(getMeta(q, 'station')),
      mqttOutbox: outbox ? outbox.outboxCounts(q) : null,
      policy: readPolicyCounts(q),
      audioBudget: getMeta(q, 'audioBudget'),
      audit: getMeta(q, 'audit'),
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
  // A stopped daemon's pauses are what it last knew: a refused token is still refused
  // at its next start unless the token changed (the view says so).
  const asOf = live ? null : iso(runtime?.updatedAt);
  const paused: StatusReport['uploads']['paused'] = (runtime?.uploader.paused ?? []).map((p) => ({
    scope: null,
    reason: p.reason,
    message: p.message,
    since: iso(p.since),
    asOf,
  }));
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
