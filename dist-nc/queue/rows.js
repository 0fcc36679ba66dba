export const TABLE = {
    recording: 'recordings',
    detection: 'detections',
};
const RECORDING_WAIT = { 0: 'nothing', 1: 'upload', 2: 'audio' };
export function toRecording(row) {
    return {
        kind: 'recording',
        id: row.id,
        sourceKey: row.source_key,
        sourcePath: row.source_path,
        spoolPath: row.spool_path,
        audioFormat: row.audio_format,
        timestamp: row.timestamp,
        timeSource: row.time_source,
        durationS: row.duration_s,
        sampleRate: row.sample_rate,
        filesize: row.filesize,
        ...base(row),
    };
}
export function toDetection(row) {
    return {
        kind: 'detection',
        id: row.id,
        recordingId: row.recording_id,
        dedupeKey: row.dedupe_key,
        timestamp: row.timestamp,
        startS: row.start_s,
        endS: row.end_s,
        scientificName: row.scientific_name,
        commonName: row.common_name,
        confidence: row.confidence,
        lat: row.lat,
        lon: row.lon,
        recordingWait: RECORDING_WAIT[row.recording_wait],
        ...base(row),
    };
}
export function toItem(kind, row) {
    return kind === 'recording' ? toRecording(row) : toDetection(row);
}
function base(row) {
    return {
        state: row.state,
        previousState: row.prev_state,
        attempts: row.attempts,
        nextAttemptAt: row.next_attempt_at,
        lastError: row.last_error,
        lastErrorCode: row.last_error_code,
        remoteId: row.remote_id,
        holdReason: row.hold_reason,
        reconcile: row.reconcile === 1,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
    };
}
export function newRecordingParams(r, now) {
    return {
        source_key: r.sourceKey,
        source_path: r.sourcePath,
        spool_path: r.spoolPath,
        audio_format: r.audioFormat,
        timestamp: r.timestamp,
        time_source: r.timeSource,
        duration_s: r.durationS,
        sample_rate: r.sampleRate,
        filesize: r.filesize,
        hold_reason: r.holdReason ?? null,
        now,
    };
}
export function newDetectionParams(d, recordingId, now) {
    return {
        recording_id: recordingId,
        dedupe_key: d.dedupeKey,
        timestamp: d.timestamp,
        start_s: d.startS,
        end_s: d.endS,
        scientific_name: d.scientificName,
        common_name: d.commonName,
        confidence: d.confidence,
        lat: d.lat,
        lon: d.lon,
        hold_reason: d.holdReason ?? null,
        now,
    };
}
