import { QueueError } from './errors.js';
import { MQTT_STATE } from './mqtt-state.js';
import { newDetectionParams, newRecordingParams } from './rows.js';
import { addToStateCounts } from './state-counts.js';
const INSERT_RECORDING = `
  INSERT INTO recordings (source_key, source_path, spool_path, audio_format, timestamp, time_source,
    duration_s, sample_rate, filesize, state, next_attempt_at, hold_reason, created_at, updated_at, waiting)
  VALUES (@source_key, @source_path, @spool_path, @audio_format, @timestamp, @time_source,
    @duration_s, @sample_rate, @filesize, 'pending', @now, @hold_reason, @now, @now, 1)
  ON CONFLICT (source_key) DO NOTHING`;
const INSERT_DETECTION = `
  INSERT INTO detections (recording_id, dedupe_key, timestamp, start_s, end_s, scientific_name, common_name,
    confidence, lat, lon, state, next_attempt_at, hold_reason, created_at, updated_at, recording_wait, waiting, mqtt_published)
  VALUES (@recording_id, @dedupe_key, @timestamp, @start_s, @end_s, @scientific_name, @common_name,
    @confidence, @lat, @lon, 'pending', @now, @hold_reason, @now, @now,
    COALESCE((SELECT detection_wait FROM recordings WHERE id = @recording_id), 0), 1,
    COALESCE((SELECT ${MQTT_STATE.notPublished} FROM meta WHERE key = 'mqtt' AND json_extract(value, '$.active') = 1), ${MQTT_STATE.updatePublished}))
  ON CONFLICT (dedupe_key) DO NOTHING`;
export function enqueueRecording(q, input, options = {}) {
    return enqueueMany(q, [input], options)[0];
}
export function enqueueMany(q, inputs, options = {}) {
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
function insertOne(q, input, now) {
    let recordingId = null;
    let recordingInserted = false;
    if (input.recording) {
        const recording = input.recording;
        checkKey('recording sourceKey', recording.sourceKey);
        checkTimestamp(`recording ${recording.sourceKey}`, recording.timestamp);
        const info = q.stmt(INSERT_RECORDING).run(newRecordingParams(recording, now));
        if (info.changes === 1) {
            recordingId = Number(info.lastInsertRowid);
            recordingInserted = true;
        }
        else {
            const row = q.stmt('SELECT id FROM recordings WHERE source_key = ?').get(recording.sourceKey);
            recordingId = row.id;
        }
    }
    let detectionsInserted = 0;
    const changed = [];
    const insertDetection = q.stmt(INSERT_DETECTION);
    for (const detection of input.detections) {
        checkKey('detection dedupeKey', detection.dedupeKey);
        checkTimestamp(`detection ${detection.dedupeKey}`, detection.timestamp);
        const inserted = insertDetection.run(newDetectionParams(detection, recordingId, now)).changes;
        detectionsInserted += inserted;
        if (inserted === 0) {
            const change = compareQueued(q, detection, now);
            if (change)
                changed.push(change);
        }
    }
    return { recordingId, recordingInserted, detectionsInserted, changed };
}
function compareQueued(q, d, now) {
    const row = q
        .stmt('SELECT id, state, attempts, end_s, common_name, confidence FROM detections WHERE dedupe_key = ?')
        .get(d.dedupeKey);
    const before = { endS: row.end_s, commonName: row.common_name, confidence: row.confidence };
    const after = { endS: d.endS, commonName: d.commonName, confidence: d.confidence };
    if (before.endS === after.endS && before.commonName === after.commonName && before.confidence === after.confidence)
        return undefined;
    const updated = row.state === 'pending' && row.attempts === 0;
    if (updated) {
        q.stmt('UPDATE detections SET end_s = ?, common_name = ?, confidence = ?, updated_at = ? WHERE id = ?').run(after.endS, after.commonName, after.confidence, now, row.id);
    }
    return { id: row.id, dedupeKey: d.dedupeKey, state: row.state, updated, before, after };
}
function checkKey(what, key) {
    if (typeof key !== 'string' || key.length === 0) {
        throw new QueueError('ERR_QUEUE_INVALID', `${what} must be a non-empty string, got ${JSON.stringify(key)}`);
    }
}
function checkTimestamp(what, timestamp) {
    if (typeof timestamp !== 'string' || Number.isNaN(Date.parse(timestamp))) {
        throw new QueueError('ERR_QUEUE_INVALID', `${what}: timestamp must be ISO 8601, got ${JSON.stringify(timestamp)}`);
    }
}
