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

import type { LinkStatus } from '../upload/link-policy.js';
import { pidAlive } from '../system/pid.js';
import { isObject } from '../wire/json-object.js';

export const RUNTIME_META_KEY = 'runtime';

/** How often the daemon refreshes the snapshot while nothing changes (one small write a minute). */
export const RUNTIME_HEARTBEAT_MS = 60_000;

/** A snapshot older than this means the daemon is hung or gone, even when its pid is alive (pids get reused). */
export const RUNTIME_STALE_MS = 3 * RUNTIME_HEARTBEAT_MS;

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
}

export type DaemonState = 'running' | 'not-responding' | 'stopped';

export interface DaemonLiveness {
  state: DaemonState;
  /** Why: `pid 123 alive, snapshot 12s old`, `pid 123 is not running`, `no snapshot`. */
  detail: string;
}

/**
 * Reads a stored snapshot leniently: an object with a numeric `pid` and
 * `updatedAt` is accepted and missing sections are filled with neutral values, so
 * a snapshot from another version never breaks `status`. Anything else is null.
 */
export function parseRuntimeSnapshot(value: unknown): RuntimeSnapshot | null {
  if (!isObject(value) || typeof value.pid !== 'number' || typeof value.updatedAt !== 'number') return null;
  const uploader = isObject(value.uploader) ? value.uploader : {};
  const watcher = isObject(value.watcher) ? value.watcher : {};
  const disk = isObject(value.disk) ? value.disk : {};
  const configSync = isObject(value.configSync) ? value.configSync : {};
  return {
    pid: value.pid,
    startedAt: num(value.startedAt) ?? value.updatedAt,
    updatedAt: value.updatedAt,
    uploader: {
      inFlight: num(uploader.inFlight) ?? 0,
      concurrencyLimit: num(uploader.concurrencyLimit) ?? 0,
      circuit: oneOf(uploader.circuit, ['closed', 'open', 'half-open'] as const, 'closed'),
      circuitRetryAt: num(uploader.circuitRetryAt),
      probes: num(uploader.probes) ?? 0,
      paused: Array.isArray(uploader.paused) ? uploader.paused.filter(isObject).map(toPause) : [],
      lastSuccessAt: num(uploader.lastSuccessAt),
      lastError: isObject(uploader.lastError) ? toError(uploader.lastError) : null,
    },
    watcher: {
      ready: watcher.ready === true,
      pending: num(watcher.pending) ?? 0,
      dir: typeof watcher.dir === 'string' ? watcher.dir : '',
    },
    clock: oneOf(value.clock, ['synchronized', 'unsynchronized', 'unknown'] as const, 'unknown'),
    disk: {
      freeBytes: num(disk.freeBytes),
      spoolBytes: num(disk.spoolBytes) ?? 0,
      low: disk.low === true,
    },
    configSync: {
      state: oneOf(configSync.state, ['idle', 'pending', 'synced', 'retrying', 'rejected'] as const, 'idle'),
      at: num(configSync.at) ?? value.updatedAt,
      ...(typeof configSync.error === 'string' ? { error: configSync.error } : {}),
      ...(typeof num(configSync.attempts) === 'number' ? { attempts: num(configSync.attempts)! } : {}),
    },
    ...(isObject(value.mqtt)
      ? {
          mqtt: {
            connected: value.mqtt.connected === true,
            broker: str(value.mqtt.broker, ''),
            lastPublishAt: num(value.mqtt.lastPublishAt),
            lastError: isObject(value.mqtt.lastError) ? toError(value.mqtt.lastError) : null,
          },
        }
      : {}),
    ...(isObject(value.link) ? { link: value.link as unknown as LinkStatus } : {}),
  };
}

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

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], fallback: T): T {
  return typeof v === 'string' && (allowed as readonly string[]).includes(v) ? (v as T) : fallback;
}

function toPause(p: Record<string, unknown>): RuntimePause {
  return { reason: str(p.reason, 'unknown'), message: str(p.message, ''), since: num(p.since) ?? 0 };
}

function toError(e: Record<string, unknown>): RuntimeError {
  return { message: str(e.message, ''), code: str(e.code, 'ERR_UNKNOWN'), at: num(e.at) ?? 0 };
}

function str(v: unknown, fallback: string): string {
  return typeof v === 'string' ? v : fallback;
}
