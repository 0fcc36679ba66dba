import { DateTime } from 'luxon';
import { getMeta, setMeta, type Queue } from '../queue/index.js';

/**
 * What of the queue the MQTT broker has been told, kept in the queue itself (the
 * column `detections.mqtt_published`, migration 4, and two meta keys), so publishing
 * survives restarts and broker outages without a buffer in memory:
 *
 * | mqtt_published | meaning |
 * |---|---|
 * | 0 | queued; the detection message is still to be published |
 * | 1 | the detection message was acknowledged; the update waits for the upload (or drop) |
 * | 2 | the update was acknowledged too (or the row predates MQTT): nothing more to say |
 *
 * Rows move 0 -> 1 -> 2 only, in batches, each batch in one transaction after the
 * broker acknowledged all of its messages. The partial index `detections_mqtt`
 * holds the rows below 2 only: the backlog is the queue's own rows, nothing more.
 */

export const NOT_PUBLISHED = 0;
export const DETECTION_PUBLISHED = 1;
export const UPDATE_PUBLISHED = 2;

export interface OutboxDetection {
  id: number;
  timestamp: string;
  startS: number;
  endS: number;
  scientificName: string;
  commonName: string;
  confidence: number;
  createdAt: number;
}

export interface OutboxUpdate {
  id: number;
  state: 'uploaded' | 'dropped';
  remoteId: number | null;
  soundscapeId: number | null;
  timestamp: string;
  scientificName: string;
  commonName: string;
  updatedAt: number;
}

/** The oldest detections whose message is not published yet, in queue order. */
export function detectionsToPublish(q: Queue, limit: number): OutboxDetection[] {
  const rows = q
    .stmt(
      `SELECT id, timestamp, start_s, end_s, scientific_name, common_name, confidence, created_at
       FROM detections INDEXED BY detections_mqtt WHERE mqtt_published < 2 AND mqtt_published = 0 ORDER BY id LIMIT ?`,
    )
    .all(limit) as { id: number; timestamp: string; start_s: number; end_s: number; scientific_name: string; common_name: string; confidence: number; created_at: number }[];
  return rows.map((r) => ({
    id: r.id,
    timestamp: r.timestamp,
    startS: r.start_s,
    endS: r.end_s,
    scientificName: r.scientific_name,
    commonName: r.common_name,
    confidence: r.confidence,
    createdAt: r.created_at,
  }));
}

/** Published detections that reached their end (uploaded or dropped) since, oldest first. */
export function updatesToPublish(q: Queue, limit: number): OutboxUpdate[] {
  const rows = q
    .stmt(
      `SELECT d.id, d.state, d.remote_id, r.remote_id AS soundscape_id, d.timestamp, d.scientific_name, d.common_name, d.updated_at
       FROM detections d INDEXED BY detections_mqtt LEFT JOIN recordings r ON r.id = d.recording_id
       WHERE d.mqtt_published < 2 AND d.mqtt_published = 1 AND d.state IN ('uploaded', 'dropped') ORDER BY d.id LIMIT ?`,
    )
    .all(limit) as {
    id: number;
    state: 'uploaded' | 'dropped';
    remote_id: number | null;
    soundscape_id: number | null;
    timestamp: string;
    scientific_name: string;
    common_name: string;
    updated_at: number;
  }[];
  return rows.map((r) => ({
    id: r.id,
    state: r.state,
    remoteId: r.state === 'uploaded' ? r.remote_id : null,
    soundscapeId: r.state === 'uploaded' ? r.soundscape_id : null,
    timestamp: r.timestamp,
    scientificName: r.scientific_name,
    commonName: r.common_name,
    updatedAt: r.updated_at,
  }));
}

/** Detection messages and updates still to be published. */
export interface OutboxCounts {
  detections: number;
  updates: number;
}

export function outboxCounts(q: Queue): OutboxCounts {
  return q.read(() => {
    const detections = (q.stmt('SELECT COUNT(*) AS n FROM detections INDEXED BY detections_mqtt WHERE mqtt_published < 2 AND mqtt_published = 0').get() as { n: number }).n;
    const updates = (
      q
        .stmt(`SELECT COUNT(*) AS n FROM detections INDEXED BY detections_mqtt WHERE mqtt_published < 2 AND mqtt_published = 1 AND state IN ('uploaded', 'dropped')`)
        .get() as { n: number }
    ).n;
    return { detections, updates };
  });
}

/** The day's tally, kept beside the outbox so it survives a restart. */
export interface TodayTally {
  /** The station's local date, `YYYY-MM-DD`. */
  day: string;
  total: number;
  species: Record<string, number>;
  last: { species: string; scientificName: string; timestamp: string } | null;
}

export const TODAY_META_KEY = 'mqttToday';

export function localDay(instant: string | number, zone: string): string {
  const dt = typeof instant === 'number' ? DateTime.fromMillis(instant) : DateTime.fromISO(instant);
  return dt.setZone(zone).toISODate() ?? '';
}

/** Today's tally (an empty one once the day changed). */
export function readToday(q: Queue, zone: string, now: number = Date.now()): TodayTally {
  const day = localDay(now, zone);
  const stored = getMeta<TodayTally>(q, TODAY_META_KEY);
  return stored && stored.day === day ? stored : { day, total: 0, species: {}, last: stored?.last ?? null };
}

/**
 * Marks a batch of detection messages as published and counts them into today's tally,
 * in one transaction: the tally never counts a detection twice, or one the broker lacks.
 */
export function markDetectionsPublished(q: Queue, batch: readonly OutboxDetection[], zone: string, now: number = Date.now()): TodayTally {
  return q.write(() => {
    const tally = readToday(q, zone, now);
    const mark = q.stmt('UPDATE detections SET mqtt_published = 1 WHERE id = ? AND mqtt_published = 0');
    for (const d of batch) {
      if (mark.run(d.id).changes !== 1) continue;
      tally.last = { species: d.commonName, scientificName: d.scientificName, timestamp: d.timestamp };
      if (localDay(d.timestamp, zone) !== tally.day) continue;
      tally.total++;
      tally.species[d.commonName] = (tally.species[d.commonName] ?? 0) + 1;
    }
    setMeta(q, TODAY_META_KEY, tally, { now });
    return tally;
  });
}

export function markUpdatesPublished(q: Queue, ids: readonly number[]): void {
  q.write(() => {
    const mark = q.stmt('UPDATE detections SET mqtt_published = 2 WHERE id = ? AND mqtt_published = 1');
    for (const id of ids) mark.run(id);
  });
}

/**
 * Publishing starts with the detections queued from now on: what was queued while
 * MQTT was off is not replayed (months of history would flood the broker and Home
 * Assistant). Returns how many rows were skipped.
 */
export function skipUnpublished(q: Queue): number {
  return q.write(() => q.stmt('UPDATE detections SET mqtt_published = 2 WHERE mqtt_published < 2').run().changes);
}
