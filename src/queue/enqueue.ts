import type { Queue } from './db.js';
import { QueueError } from './errors.js';
import { MQTT_STATE } from './mqtt-state.js';
import { newDetectionParams, newRecordingParams } from './rows.js';
import { addToStateCounts } from './state-counts.js';
import type { NewDetection, NewRecording } from './types.js';

/** One recording (or none) with the detections found in it. */
export interface EnqueueInput {
  recording: NewRecording | null;
  detections: NewDetection[];
}

export interface EnqueueResult {
  /** The recording's id, whether it was inserted now or before; null without recording. */
  recordingId: number | null;
  recordingInserted: boolean;
  detectionsInserted: number;
  /** Detections already queued under the same key whose values differ from this input's. */
  changed: ChangedDetection[];
}

/**
 * A detection queued again (same dedupe key: recording, start, species) with other values
 * (a result file rewritten after it was read). An item never attempted takes the new values
 * (`updated`); one already sent keeps what the service has, and the caller reports it.
 */
export interface ChangedDetection {
  id: number;
  dedupeKey: string;
  state: string;
  updated: boolean;
  before: { endS: number; commonName: string; confidence: number };
  after: { endS: number; commonName: string; confidence: number };
}

export interface EnqueueOptions {
  /** Epoch ms: `created_at`, `updated_at`, and `next_attempt_at` (due at once). Default now. */
  now?: number;
}

const INSERT_RECORDING = `
  INSERT INTO recordings (source_key, source_path, spool_path, audio_format, timestamp, time_source,
    duration_s, sample_rate, filesize, audio_mtime_ms, state, next_attempt_at, hold_reason, created_at, updated_at, waiting)
  VALUES (@source_key, @source_path, @spool_path, @audio_format, @timestamp, @time_source,
    @duration_s, @sample_rate, @filesize, @audio_mtime_ms, 'pending', @now, @hold_reason, @now, @now, 1)
  ON CONFLICT (source_key) DO NOTHING`;

// recording_wait: what the detection waits for, from its recording (see the schema; a
// trigger keeps it when the recording changes). mqtt_published: in the MQTT outbox only
// while publishing is on (meta `mqtt`.active, mqtt/presence.ts); otherwise past it, as
// turning publishing on would skip it anyway (skipUnpublished), and without the outbox
// index's page written for every detection of a station without MQTT.
const INSERT_DETECTION = `
  INSERT INTO detections (recording_id, dedupe_key, timestamp, start_s, end_s, scientific_name, common_name,
    confidence, lat, lon, state, next_attempt_at, hold_reason, created_at, updated_at, recording_wait, waiting, mqtt_published)
  VALUES (@recording_id, @dedupe_key, @timestamp, @start_s, @end_s, @scientific_name, @common_name,
    @confidence, @lat, @lon, 'pending', @now, @hold_reason, @now, @now,
    COALESCE((SELECT detection_wait FROM recordings WHERE id = @recording_id), 0), 1,
    COALESCE((SELECT ${MQTT_STATE.notPublished} FROM meta WHERE key = 'mqtt' AND json_extract(value, '$.active') = 1), ${MQTT_STATE.updatePublished}))
  ON CONFLICT (dedupe_key) DO NOTHING`;

/**
 * Queues a recording and its detections in ONE transaction: after a crash either
 * all of them are queued or none. Idempotent: a recording whose `sourceKey` (or a
 * detection whose `dedupeKey`) is already queued is left as it is, so ingesting the
 * same files twice adds nothing. New detections of an already queued recording are
 * attached to it.
 */
export function enqueueRecording(q: Queue, input: EnqueueInput, options: EnqueueOptions = {}): EnqueueResult {
  return enqueueMany(q, [input], options)[0];
}

/**
 * Queues many recordings in one transaction (one fsync for the batch: with
 * `synchronous=FULL` a commit per recording would cap ingest at the card's fsync
 * rate). Results are in input order.
 */
export function enqueueMany(q: Queue, inputs: readonly EnqueueInput[], options: EnqueueOptions = {}): EnqueueResult[] {
  const now = options.now ?? Date.now();
  return q.write(() => {
    const results = inputs.map((input) => insertOne(q, input, now));
    let recordings = 0;
    let detections = 0;
    const spool = { files: 0, bytes: 0 };
    results.forEach((r, k) => {
      recordings += Number(r.recordingInserted);
      detections += r.detectionsInserted;
      const recording = inputs[k].recording;
      if (r.recordingInserted && recording?.spoolPath != null) {
        spool.files += 1;
        spool.bytes += recording.filesize ?? 0;
      }
    });
    addToStateCounts(q, 'recording', { pending: recordings }, spool);
    addToStateCounts(q, 'detection', { pending: detections });
    return results;
  });
}

function insertOne(q: Queue, input: EnqueueInput, now: number): EnqueueResult {
  let recordingId: number | null = null;
  let recordingInserted = false;
  if (input.recording) {
    const recording = input.recording;
    checkKey('recording sourceKey', recording.sourceKey);
    checkTimestamp(`recording ${recording.sourceKey}`, recording.timestamp);
    const info = q.stmt(INSERT_RECORDING).run(newRecordingParams(recording, now));
    if (info.changes === 1) {
      recordingId = Number(info.lastInsertRowid);
      recordingInserted = true;
    } else {
      const row = q.stmt('SELECT id FROM recordings WHERE source_key = ?').get(recording.sourceKey) as { id: number };
      recordingId = row.id;
    }
  }
  let detectionsInserted = 0;
  const changed: ChangedDetection[] = [];
  const insertDetection = q.stmt(INSERT_DETECTION);
  for (const detection of input.detections) {
    checkKey('detection dedupeKey', detection.dedupeKey);
    checkTimestamp(`detection ${detection.dedupeKey}`, detection.timestamp);
    const inserted = insertDetection.run(newDetectionParams(detection, recordingId, now)).changes;
    detectionsInserted += inserted;
    if (inserted === 0) {
      const change = compareQueued(q, detection, now);
      if (change) changed.push(change);
    }
  }
  return { recordingId, recordingInserted, detectionsInserted, changed };
}

/** The queued detection under the same key, when its values differ; updated if it was never attempted. */
function compareQueued(q: Queue, d: NewDetection, now: number): ChangedDetection | undefined {
  const row = q
    .stmt('SELECT id, state, attempts, end_s, common_name, confidence FROM detections WHERE dedupe_key = ?')
    .get(d.dedupeKey) as { id: number; state: string; attempts: number; end_s: number; common_name: string; confidence: number };
  const before = { endS: row.end_s, commonName: row.common_name, confidence: row.confidence };
  const after = { endS: d.endS, commonName: d.commonName, confidence: d.confidence };
  if (before.endS === after.endS && before.commonName === after.commonName && before.confidence === after.confidence) return undefined;
  const updated = row.state === 'pending' && row.attempts === 0;
  if (updated) {
    q.stmt('UPDATE detections SET end_s = ?, common_name = ?, confidence = ?, updated_at = ? WHERE id = ?').run(
      after.endS,
      after.commonName,
      after.confidence,
      now,
      row.id,
    );
  }
  return { id: row.id, dedupeKey: d.dedupeKey, state: row.state, updated, before, after };
}

function checkKey(what: string, key: string): void {
  if (typeof key !== 'string' || key.length === 0) {
    throw new QueueError('ERR_QUEUE_INVALID', `${what} must be a non-empty string, got ${JSON.stringify(key)}`);
  }
}

// The service needs the instant; an unparseable timestamp would fail every upload.
function checkTimestamp(what: string, timestamp: string): void {
  if (typeof timestamp !== 'string' || Number.isNaN(Date.parse(timestamp))) {
    throw new QueueError('ERR_QUEUE_INVALID', `${what}: timestamp must be ISO 8601, got ${JSON.stringify(timestamp)}`);
  }
}
