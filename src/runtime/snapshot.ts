/**
 * The running daemon's snapshot of itself, for `station-agent status`. The daemon
 * writes it as JSON into the queue's meta table under {@link RUNTIME_META_KEY}
 * every {@link RUNTIME_HEARTBEAT_MS} (and when something an operator cares about
 * changes: a pause, the circuit opening, a config sync); `status` reads it. All
 * instants are epoch milliseconds.
 *
 * Keys are only ever added: an older `status` must still read a newer daemon's
 * snapshot, and the reverse (see {@link parseRuntimeSnapshot}).
 */

import type { AudioTakeCounts } from '../ingest/spool.js';
import type { BudgetState } from '../upload/data-budget.js';
import type { LinkStatus } from '../upload/link-policy.js';
import { pidAlive } from '../system/pid.js';
import { isObject } from '../wire/json-object.js';

export const RUNTIME_META_KEY = 'runtime';

/** How often the daemon refreshes the snapshot while nothing changes (one small write a minute). */
export const RUNTIME_HEARTBEAT_MS = 60_000;

/** A snapshot older than this means the daemon is hung or gone, even when its pid is alive (pids get reused). */
const RUNTIME_STALE_MS = 3 * RUNTIME_HEARTBEAT_MS;

export type CircuitState = 'closed' | 'open' | 'half-open';
export type ClockState = 'synchronized' | 'unsynchronized' | 'unknown';
export type ConfigSyncStateName = 'idle' | 'pending' | 'synced' | 'retrying' | 'rejected';

/** Why uploads (of a scope) are paused, e.g. `{ reason: 'token', message: 'HTTP 403 ...' }`. */
export interface RuntimePause {
  /** Short stable word: `token`, `soundscapes-rejected`, `clock`, `disk`, `circuit`, ... */
  reason: string;
  message: string;
  since: number;
}

export interface RuntimeError {
  message: string;
  /** The error's stable code (`ERR_HTTP_STATUS`, ...). */
  code: string;
  at: number;
}

export interface RuntimeSnapshot {
  pid: number;
  startedAt: number;
  /** When the daemon last wrote this snapshot. */
  updatedAt: number;
  uploader: {
    inFlight: number;
    /** The adaptive concurrency's current limit (at most `upload.concurrency`). */
    concurrencyLimit: number;
    circuit: CircuitState;
    /** When an open circuit lets the next probe through; null when closed. */
    circuitRetryAt: number | null;
    /** Probes sent while paused or open, since start. */
    probes: number;
    paused: RuntimePause[];
    lastSuccessAt: number | null;
    lastError: RuntimeError | null;
  };
  watcher: {
    /** The initial scan of `input.dir` is done. */
    ready: boolean;
    /** Files seen but not yet stable or paired. */
    pending: number;
    dir: string;
  };
  clock: ClockState;
  disk: {
    /** Free bytes on the file system of `dataDir`. */
    freeBytes: number | null;
    spoolBytes: number;
    /** Below `disk.minFreeMb`: no more audio is spooled. */
    low: boolean;
  };
  configSync: {
    state: ConfigSyncStateName;
    at: number;
    error?: string;
    attempts?: number;
  };
  /** The MQTT publisher (src/mqtt); absent when `mqtt.enabled` is false. */
  mqtt?: {
    connected: boolean;
    /** The broker URL, its password redacted. */
    broker: string;
    lastPublishAt: number | null;
    lastError: RuntimeError | null;
  };
  /** Upload windows, data budget and bandwidth cap (upload/link-policy.ts); absent in older snapshots. */
  link?: LinkStatus;
  /** How the spool took the audio since start, linked or copied, measured where the daemon runs (ingest/spool.ts); absent in older snapshots. */
  audio?: AudioTakeCounts;
}

export type DaemonState = 'running' | 'not-responding' | 'stopped';

export interface DaemonLiveness {
  state: DaemonState;
  /** Why: `pid 123 alive, snapshot 12s old`, `pid 123 is not running`, `no snapshot`. */
  detail: string;
}

/**
 * Reads a stored snapshot leniently: an object with a numeric `pid` and `updatedAt` is
 * accepted and missing sections are filled with neutral values, so a snapshot from
 * another version never breaks `status`. Anything else is null. The parser is derived
 * from {@link SNAPSHOT}, one reader per field that the compiler holds against
 * `RuntimeSnapshot`.
 */
export function parseRuntimeSnapshot(value: unknown): RuntimeSnapshot | null {
  if (!isObject(value) || typeof value.pid !== 'number' || typeof value.updatedAt !== 'number') return null;
  return SNAPSHOT(value, value);
}

/** Reads one field; `root` is the whole stored snapshot (a fallback may be its `updatedAt`). */
type Reader<T> = (value: unknown, root: Record<string, unknown>) => T;

/** One reader per key of `T`; an optional key's reader may answer undefined (the key is left out). */
type Readers<T> = { [K in keyof T]-?: Reader<T[K]> };

function object<T>(fields: Readers<T>): Reader<T> {
  return (value, root) => {
    const from = isObject(value) ? value : {};
    const out: Record<string, unknown> = {};
    for (const [key, read] of Object.entries<Reader<unknown>>(fields)) {
      const v = read(from[key], root);
      if (v !== undefined) out[key] = v;
    }
    return out as T;
  };
}

/** A section that is left out unless it is an object. */
const optional =
  <T>(read: Reader<T>): Reader<T | undefined> =>
  (value, root) =>
    isObject(value) ? read(value, root) : undefined;

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const number =
  (fallback: number | ((root: Record<string, unknown>) => number)): Reader<number> =>
  (v, root) =>
    finite(v) ?? (typeof fallback === 'number' ? fallback : fallback(root));
const numberOrNull: Reader<number | null> = (v) => finite(v);
const numberOrAbsent: Reader<number | undefined> = (v) => finite(v) ?? undefined;
const updatedAt = (root: Record<string, unknown>) => root.updatedAt as number;
const flag: Reader<boolean> = (v) => v === true;
const text =
  (fallback: string): Reader<string> =>
  (v) =>
    typeof v === 'string' ? v : fallback;
const textOrAbsent: Reader<string | undefined> = (v) => (typeof v === 'string' ? v : undefined);
const oneOf =
  <T extends string>(allowed: readonly T[], fallback: T): Reader<T> =>
  (v) =>
    typeof v === 'string' && (allowed as readonly string[]).includes(v) ? (v as T) : fallback;
const listOf =
  <T>(read: Reader<T>): Reader<T[]> =>
  (v, root) =>
    Array.isArray(v) ? v.filter(isObject).map((item) => read(item, root)) : [];
const errorOrNull: Reader<RuntimeError | null> = (v, root) => (isObject(v) ? ERROR(v, root) : null);
const texts: Reader<string[]> = (v) => (Array.isArray(v) ? v.filter((item): item is string => typeof item === 'string') : []);
const budgetOrNull: Reader<BudgetState | null> = (v, root) => (isObject(v) ? BUDGET(v, root) : null);

const BUDGET = object<BudgetState>({ limit: number(0), usedToday: number(0), left: number(0), renewsAt: number(0) });

const ERROR = object<RuntimeError>({ message: text(''), code: text('ERR_UNKNOWN'), at: number(0) });

const SNAPSHOT = object<RuntimeSnapshot>({
  pid: number(0),
  startedAt: number(updatedAt),
  updatedAt: number(0),
  uploader: object<RuntimeSnapshot['uploader']>({
    inFlight: number(0),
    concurrencyLimit: number(0),
    circuit: oneOf(['closed', 'open', 'half-open'], 'closed'),
    circuitRetryAt: numberOrNull,
    probes: number(0),
    paused: listOf(object<RuntimePause>({ reason: text('unknown'), message: text(''), since: number(0) })),
    lastSuccessAt: numberOrNull,
    lastError: errorOrNull,
  }),
  watcher: object<RuntimeSnapshot['watcher']>({ ready: flag, pending: number(0), dir: text('') }),
  clock: oneOf(['synchronized', 'unsynchronized', 'unknown'], 'unknown'),
  disk: object<RuntimeSnapshot['disk']>({ freeBytes: numberOrNull, spoolBytes: number(0), low: flag }),
  configSync: object<RuntimeSnapshot['configSync']>({
    state: oneOf(['idle', 'pending', 'synced', 'retrying', 'rejected'], 'idle'),
    at: number(updatedAt),
    error: textOrAbsent,
    attempts: numberOrAbsent,
  }),
  mqtt: optional(object<NonNullable<RuntimeSnapshot['mqtt']>>({ connected: flag, broker: text(''), lastPublishAt: numberOrNull, lastError: errorOrNull })),
  link: optional(
    object<LinkStatus>({
      windows: texts,
      windowsAudioOnly: flag,
      // Without windows the link is open.
      windowOpen: (v) => v !== false,
      windowChangesAt: numberOrNull,
      budget: budgetOrNull,
      capBytesPerSec: numberOrNull,
      rateBytesPerSec: number(0),
    }),
  ),
  audio: optional(
    object<AudioTakeCounts>({ linked: number(0), referenced: number(0), copied: number(0), copiedBytes: number(0), lastCopyWhy: (v) => (typeof v === 'string' ? v : null), lastCopyAt: numberOrNull, nearDir: (v) => (typeof v === 'string' ? v : null) }),
  ),
});

/** What the daemon's components publish (daemon/state.ts): the snapshot without the daemon's own stamps. */
export type RuntimeState = Omit<RuntimeSnapshot, 'pid' | 'startedAt' | 'updatedAt'>;

/**
 * The snapshot's sections in the order they are written; the type makes the list whole
 * (a section added to `RuntimeSnapshot` and not here does not compile).
 */
const SECTION_ORDER: { [K in keyof RuntimeState]-?: K } = {
  uploader: 'uploader',
  watcher: 'watcher',
  clock: 'clock',
  disk: 'disk',
  configSync: 'configSync',
  mqtt: 'mqtt',
  link: 'link',
  audio: 'audio',
};

export const SNAPSHOT_SECTIONS: readonly (keyof RuntimeState)[] = Object.values(SECTION_ORDER);

/**
 * Whether the daemon that wrote `snapshot` is running: its pid is alive and the
 * snapshot is fresh. `isAlive` is injectable for tests.
 */
export function daemonLiveness(
  snapshot: RuntimeSnapshot | null,
  now = Date.now(),
  isAlive: (pid: number) => boolean = pidAlive,
): DaemonLiveness {
  if (!snapshot) return { state: 'stopped', detail: 'no runtime snapshot in the queue (the daemon has not run with this queue)' };
  const age = now - snapshot.updatedAt;
  const seconds = Math.max(0, Math.round(age / 1000));
  if (!isAlive(snapshot.pid)) return { state: 'stopped', detail: `pid ${snapshot.pid} is not running; last snapshot ${seconds}s old` };
  if (age > RUNTIME_STALE_MS) {
    return { state: 'not-responding', detail: `pid ${snapshot.pid} is alive but its snapshot is ${seconds}s old (refreshed every ${RUNTIME_HEARTBEAT_MS / 1000}s)` };
  }
  return { state: 'running', detail: `pid ${snapshot.pid}, snapshot ${seconds}s old` };
}
