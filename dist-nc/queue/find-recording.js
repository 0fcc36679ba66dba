import { toRecording } from './rows.js';
export function findRecordingBySourceKey(q, sourceKey) {
    const row = q.stmt(`SELECT * FROM recordings WHERE source_key = ?`).get(sourceKey);
    return row ? toRecording(row) : undefined;
}
