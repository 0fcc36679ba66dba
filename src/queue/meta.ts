import type { StationConfigRecord } from '../wire/types.js';
import type { Queue } from './db.js';
import { QueueDatabaseError, QueueError } from './errors.js';

/**
 * A small key-value store next to the queue, for state that must survive a restart and
 * that `status` reads: values are JSON. Every key is listed in {@link MetaValues} with the
 * shape it holds, and only those keys can be read or written; ask for a new key by adding
 * it here. A write that leaves a value as it is writes nothing (the card counts writes);
 * writers write on change, once per batch, never per item or per poll.
 *
 * | key | written by | read by |
 * |---|---|---|
 * | `station` | config sync, `config push` | `status`, `config show`, GraphQL support |
 * | `lastSuccessAt` | the daemon's runtime writer, when an upload succeeded since | `status`, alerts, metrics, MQTT state |
 * | `audioBudget` | the daily data budget (upload/data-budget.ts), when an upload ends and at stop | the same at start, `status` |
 * | `alerts` | the alert monitor, on a notice | the same at start |
 * | `runtime` | the daemon (runtime/snapshot.ts), on change and once a minute | `status` (also a stopped daemon's pauses), metrics |
 * | `mqtt` | the MQTT publisher (mqtt/presence.ts), on change | the same, `mqtt.enabled: false` cleanup |
 * | `mqttToday` | the MQTT publisher, once per acknowledged batch | the MQTT state topic |
 * | `policyCounts` | ingest once per file, the species gate sweep once per expiry | `status`, metrics |
 * | `audit` | the daemon's delivery audit (daemon/audit.ts), after each audit | `status`, metrics, alerts, MQTT state |
 */
export interface MetaValues {
  /** The station's record from the last config sync. */
  station: { record: StationConfigRecord; syncedAt: number };
  /** Epoch ms of the last successful upload. */
  lastSuccessAt: number;
  /** Soundscape bytes sent on a local day, for `upload.audioBytesPerDay` (upload/data-budget.ts). */
  audioBudget: { day: string; bytes: number };
  /** What the alerts last sent, per condition key (alerts/alerter.ts `AlertRecords`). */
  alerts: Record<string, { notified: 'firing' | 'resolved' | null }>;
  /**
   * The daemon's snapshot of itself (runtime/snapshot.ts `RuntimeSnapshot`). Read only through
   * `parseRuntimeSnapshot`: another version of the agent may have written it.
   */
  runtime: StoredRuntime;
  /** What the station left on the MQTT broker, and whether publishing is on (mqtt/presence.ts). */
  mqtt: Partial<MqttPresence>;
  /** The day's tally of published detections (mqtt/outbox.ts). */
  mqttToday: TodayTally;
  /** What the station's policies kept back, cumulative (policy/counts.ts). */
  policyCounts: Partial<PolicyCounts>;
  /** The daemon's last delivery audit, and its totals since the queue began (daemon/audit.ts). */
  audit: LastAudit;
}

export interface LastAudit {
  /** Epoch ms the last audit finished. */
  at: number;
  /** What started it: the daily audit of yesterday, or the last hour after an outage or a reconciliation. */
  trigger: 'daily' | 'outage' | 'reconcile';
  /** The period it read, ISO 8601. */
  from: string;
  to: string;
  missing: number;
  altered: number;
  foreign: number;
  requeued: number;
  requests: number;
  bytes: number;
  /** Its first findings (at most 20): what `status` shows. */
  findings: { kind: string; finding: string; item: string | null; remoteId: number }[];
  /** The station's local date of the last daily audit (it read the day before). */
  dailyDate: string | null;
  /** Since the queue began. */
  runs: number;
  requestsTotal: number;
  bytesTotal: number;
}

export type MetaKey = keyof MetaValues;

/** What `runtime` must hold for `status` to read it; the rest is read leniently. */
export interface StoredRuntime {
  pid: number;
  updatedAt: number;
}

export interface MqttPresence {
  /** Publishing is on: every detection queued since is published. */
  active: boolean;
  /** The broker these topics were published to (scheme, host and port: `redactUrl`). */
  broker: string | null;
  /** Retained Home Assistant discovery config topics. */
  discoveryTopics: string[];
  /** Other retained topics of the station (status, state, last detection). */
  retainedTopics: string[];
}

export interface TodayTally {
  /** The station's local date, `YYYY-MM-DD`. */
  day: string;
  total: number;
  species: Record<string, number>;
  last: { species: string; scientificName: string; timestamp: string } | null;
}

export interface PolicyCounts {
  /** Recordings whose soundscape was withheld because a person was heard (privacy). */
  humanSoundscapesWithheld: number;
  /** Rows of non-bird (and human) classes at or above their threshold, per class. */
  nonBird: Record<string, number>;
  /** Rows left out by `filters.include` / `filters.exclude`. */
  excluded: number;
  /** Rows at or above `input.minConfidence` but below their `filters.speciesMinConfidence`. */
  belowSpeciesMinConfidence: number;
  /** Detections dropped by the species gate (`filters.minDetectionsPer24h` never reached). */
  speciesGateExpired: number;
}

export function getMeta<K extends MetaKey>(q: Queue, key: K): MetaValues[K] | undefined {
  const row = q.stmt('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  if (!row) return undefined;
  try {
    return JSON.parse(row.value) as MetaValues[K];
  } catch (err) {
    throw new QueueDatabaseError(`meta key "${key}" in queue database ${q.path} does not hold JSON`, { cause: err });
  }
}

/** Stores `value` under `key`; writes nothing when the stored value is the same. Returns whether it wrote. */
export function setMeta<K extends MetaKey>(q: Queue, key: K, value: MetaValues[K], options: { now?: number } = {}): boolean {
  const json = JSON.stringify(value);
  if (json === undefined) throw new QueueError('ERR_QUEUE_INVALID', `meta key "${key}": value is not JSON (${typeof value})`);
  return (
    q
      .stmt(
        'INSERT INTO meta (key, value, updated_at) VALUES (?, ?, ?) ' +
          'ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at WHERE meta.value IS NOT excluded.value',
      )
      .run(key, json, options.now ?? Date.now()).changes === 1
  );
}

/**
 * When the meta table was last written (epoch ms), or null: the daemon's runtime snapshot
 * is rewritten at least once a minute, so at start this is about when the last run ended,
 * the reference of the expiry clock (queue/expiry-clock.ts).
 */
export function metaLastWrittenAt(q: Queue): number | null {
  return (q.stmt('SELECT MAX(updated_at) FROM meta').pluck().get() as number | null) ?? null;
}
