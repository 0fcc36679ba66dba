import type { StationConfigRecord } from '../wire/types.js';
import type { Queue } from './db.js';
import { QueueError } from './errors.js';

/**
 * A small key-value store next to the queue, for state that must survive a
 * restart and that `status` reads: values are JSON. Known keys are typed here; ask
 * for a new key by adding it to {@link MetaValues}. Writes are meant to be rare
 * (on change, not per poll): the card counts writes.
 */
export interface MetaValues {
  /** The station's record from the last config sync. */
  station: { record: StationConfigRecord; syncedAt: number };
  /** Why uploads are paused, by scope; a missing scope is not paused. */
  pauseReasons: Partial<Record<'station' | 'soundscapes', PauseState>>;
  /** Epoch ms of the last successful upload. */
  lastSuccessAt: number;
  /** Cumulative counters (uploads, retries, ...), flushed in batches. */
  counters: Record<string, number>;
  /** Soundscape bytes sent on a local day, for `upload.audioBytesPerDay` (upload/data-budget.ts). */
  audioBudget: { day: string; bytes: number };
  /** What the alerts last sent, per condition key (alerts/alerter.ts `AlertRecords`). */
  alerts: Record<string, { notified: 'firing' | 'resolved' | null } & Record<string, unknown>>;
}

export interface PauseState {
  reason: string;
  code: string;
  message: string;
  /** Epoch ms. */
  since: number;
}

export type MetaKey = keyof MetaValues;

export function getMeta<K extends MetaKey>(q: Queue, key: K): MetaValues[K] | undefined;
export function getMeta<T = unknown>(q: Queue, key: string): T | undefined;
export function getMeta(q: Queue, key: string): unknown {
  const row = q.stmt('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  if (!row) return undefined;
  try {
    return JSON.parse(row.value) as unknown;
  } catch (err) {
    throw new QueueError('ERR_QUEUE', `meta key "${key}" in queue database ${q.path} does not hold JSON`, { cause: err });
  }
}

export function setMeta<K extends MetaKey>(q: Queue, key: K, value: MetaValues[K], options?: { now?: number }): void;
export function setMeta(q: Queue, key: string, value: unknown, options?: { now?: number }): void;
export function setMeta(q: Queue, key: string, value: unknown, options: { now?: number } = {}): void {
  const json = JSON.stringify(value);
  if (json === undefined) throw new QueueError('ERR_QUEUE_INVALID', `meta key "${key}": value is not JSON (${typeof value})`);
  q.stmt(
    'INSERT INTO meta (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
  ).run(key, json, options.now ?? Date.now());
}

export function deleteMeta(q: Queue, key: string): boolean {
  return q.stmt('DELETE FROM meta WHERE key = ?').run(key).changes === 1;
}

/** Adds `deltas` to the stored counters in one transaction; returns the new totals. */
export function incrementCounters(q: Queue, deltas: Readonly<Record<string, number>>, options: { now?: number } = {}): Record<string, number> {
  return q.write(() => {
    const counters = { ...getMeta(q, 'counters') };
    for (const [name, delta] of Object.entries(deltas)) counters[name] = (counters[name] ?? 0) + delta;
    setMeta(q, 'counters', counters, options);
    return counters;
  });
}
