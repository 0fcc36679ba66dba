import type { Queue } from './db.js';
import { moveItem } from './state.js';
import { TABLE } from './rows.js';
import type { ItemKind } from './types.js';

/**
 * What the delivery audit (src/audit/) reads of the queue: the items the service
 * acknowledged in a period of their own time, and the one repair it may make. A row's
 * instant is read from its ISO time with its offset by SQLite itself (`julianday`), so
 * rows stamped in summer and winter time compare as instants. No index serves it: the
 * audit runs once a day, and an index on the instant would cost every ingest a write.
 */
const INSTANT = `CAST(ROUND((julianday(timestamp) - 2440587.5) * 86400000.0) AS INTEGER)`;
const IN_RANGE = `${INSTANT} BETWEEN @from AND @to`;

export interface DeliveredRecording {
  id: number;
  remoteId: number;
  timestamp: string;
  durationS: number | null;
  sampleRate: number | null;
  /** The FLAC's bytes as sent, when the queue knows them (uploads since the audit came). */
  sentBytes: number | null;
  auditRequeued: boolean;
  /** Whether its audio is still in the spool (`retention.keepUploadedDays`): only then can it be sent again. */
  hasAudio: boolean;
}

export interface DeliveredDetection {
  id: number;
  remoteId: number;
  timestamp: string;
  scientificName: string;
  commonName: string;
  auditRequeued: boolean;
}

/** Uploaded recordings whose start lies in `[fromMs, toMs]`, oldest first. */
export function deliveredRecordings(q: Queue, fromMs: number, toMs: number): DeliveredRecording[] {
  const rows = q
    .stmt(
      `SELECT id, remote_id, timestamp, duration_s, sample_rate, sent_bytes, audit_requeued, spool_path IS NOT NULL AS has_audio
       FROM recordings WHERE state = 'uploaded' AND remote_id IS NOT NULL AND ${IN_RANGE} ORDER BY ${INSTANT}, id`,
    )
    .all({ from: fromMs, to: toMs }) as {
    id: number;
    remote_id: number;
    timestamp: string;
    duration_s: number | null;
    sample_rate: number | null;
    sent_bytes: number | null;
    audit_requeued: number;
    has_audio: number;
  }[];
  return rows.map((r) => ({
    id: r.id,
    remoteId: r.remote_id,
    timestamp: r.timestamp,
    durationS: r.duration_s,
    sampleRate: r.sample_rate,
    sentBytes: r.sent_bytes,
    auditRequeued: r.audit_requeued === 1,
    hasAudio: r.has_audio === 1,
  }));
}

/** Uploaded detections whose time lies in `[fromMs, toMs]`, oldest first. */
export function deliveredDetections(q: Queue, fromMs: number, toMs: number): DeliveredDetection[] {
  const rows = q
    .stmt(
      `SELECT id, remote_id, timestamp, scientific_name, common_name, audit_requeued
       FROM detections WHERE state = 'uploaded' AND remote_id IS NOT NULL AND ${IN_RANGE} ORDER BY ${INSTANT}, id`,
    )
    .all({ from: fromMs, to: toMs }) as {
    id: number;
    remote_id: number;
    timestamp: string;
    scientific_name: string;
    common_name: string;
    audit_requeued: number;
  }[];
  return rows.map((r) => ({
    id: r.id,
    remoteId: r.remote_id,
    timestamp: r.timestamp,
    scientificName: r.scientific_name,
    commonName: r.common_name,
    auditRequeued: r.audit_requeued === 1,
  }));
}

/** Uploaded detections in `[fromMs, toMs]` per scientific name (lower case): what the day's species counts at the service are held against. */
export function deliveredSpeciesCounts(q: Queue, fromMs: number, toMs: number): Map<string, number> {
  const rows = q
    .stmt(
      `SELECT lower(scientific_name) AS name, COUNT(*) AS n FROM detections
       WHERE state = 'uploaded' AND remote_id IS NOT NULL AND ${IN_RANGE} GROUP BY lower(scientific_name)`,
    )
    .all({ from: fromMs, to: toMs }) as { name: string; n: number }[];
  return new Map(rows.map((r) => [r.name, r.n]));
}

/**
 * The instants of items in `[fromMs, toMs]` that still wait (pending, sending, unknown):
 * an item at the service whose id the queue does not hold yet may be one of them (an
 * outcome not yet known or committed), not a stranger's.
 */
export function waitingInstants(q: Queue, kind: ItemKind, fromMs: number, toMs: number): number[] {
  const rows = q
    .stmt(`SELECT ${INSTANT} AS at FROM ${TABLE[kind]} WHERE waiting = 1 AND ${IN_RANGE}`)
    .all({ from: fromMs, to: toMs }) as { at: number }[];
  return rows.map((r) => r.at);
}

export type RequeueOutcome = 'requeued' | 'requeued-before' | 'no-audio';

/**
 * The audit's repair: an acknowledged item the service does not hold goes back to
 * `pending` (`uploaded -> pending`), its service id cleared, to be sent again, once. An
 * item the audit re-queued before, or a recording whose audio is gone from the spool,
 * stays as it is and is reported. Returns what was done.
 */
export function requeueMissing(q: Queue, kind: ItemKind, id: number, now: number = Date.now()): RequeueOutcome {
  return q.write(() => {
    const row = q.stmt(`SELECT audit_requeued, ${kind === 'recording' ? 'spool_path IS NOT NULL' : '1'} AS has_audio FROM ${TABLE[kind]} WHERE id = ?`).get(id) as
      | { audit_requeued: number; has_audio: number }
      | undefined;
    if (!row || row.audit_requeued === 1) return 'requeued-before';
    if (row.has_audio !== 1) return 'no-audio';
    moveItem(
      q,
      kind,
      id,
      'pending',
      {
        remoteId: null,
        ...(kind === 'recording' ? { sentBytes: null } : {}),
        auditRequeued: true,
        attempts: 0,
        nextAttemptAt: now,
        reconcile: false,
        lastError: 'acknowledged, then missing at the service (delivery audit): sent again',
        lastErrorCode: 'ERR_DELIVERY_MISSING',
      },
      { from: ['uploaded'], now },
    );
    return 'requeued';
  });
}
