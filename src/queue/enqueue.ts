import type { Queue } from './db.js';
import { QueueError } from './errors.js';
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
}

export interface EnqueueOptions {
  /** Epoch ms: `created_at`, `updated_at`, and `next_attempt_at` (due at once). Default now. */
  now?: number;
}

const INSERT_RECORDING = `
  INSERT INTO recordings (source_key, source_path, spool_path, audio_format, timestamp, time_source,
    duration_s, sample_rate, filesize, state, next_attempt_at, hold_reason, created_at, updated_at)
  VALUES (@source_key, @source_path, @spool_path, @audio_format, @timestamp, @time_source,
    @duration_s, @sample_rate, @filesize, 'pending', @now, @hold_reason, @now, @now)
  ON CONFLICT (source_key) DO NOTHING`;

// recording_wait: what the detection waits for, from its recording (see the schema; a
// trigger keeps it when the recording changes).
const INSERT_DETECTION = `
  INSERT INTO detections (recording_id, dedupe_key, timestamp, start_s, end_s, scientific_name, common_name,
    confidence, lat, lon, state, next_attempt_at, hold_reason, created_at, updated_at, recording_wait)
  VALUES (@recording_id, @dedupe_key, @timestamp, @start_s, @end_s, @scientific_name, @common_name,
    @confidence, @lat, @lon, 'pending', @now, @hold_reason, @now, @now,
    COALESCE((SELECT detection_wait FROM recordings WHERE id = @recording_id), 0))
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
    for (const r of results) {
      recordings += Number(r.recordingInserted);
      detections += r.detectionsInserted;
    }
    addToStateCounts(q, 'recording', { pending: recordings });
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
  const insertDetection = q.stmt(INSERT_DETECTION);
  for (const detection of input.detections) {
    checkKey('detection dedupeKey', detection.dedupeKey);
    checkTimestamp(`detection ${detection.dedupeKey}`, detection.timestamp);
    detectionsInserted += insertDetection.run(newDetectionParams(detection, recordingId, now)).changes;
  }
  return { recordingId, recordingInserted, detectionsInserted };
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
