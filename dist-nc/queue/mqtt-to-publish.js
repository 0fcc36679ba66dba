import { UPDATE_DUE_STATES, inOutbox } from './mqtt-state.js';
export function detectionsToPublish(q, limit) {
    const rows = q
        .stmt(`SELECT id, timestamp, start_s, end_s, scientific_name, common_name, confidence, created_at
       FROM detections INDEXED BY detections_mqtt WHERE ${inOutbox('notPublished')} ORDER BY id LIMIT ?`)
        .all(limit);
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
export function updatesToPublish(q, limit) {
    const rows = q
        .stmt(`SELECT d.id, d.state, d.remote_id, r.remote_id AS soundscape_id, d.timestamp, d.scientific_name, d.common_name, d.updated_at
       FROM detections d INDEXED BY detections_mqtt LEFT JOIN recordings r ON r.id = d.recording_id
       WHERE ${inOutbox('detectionPublished', 'd.')} AND d.state IN ${UPDATE_DUE_STATES} ORDER BY d.id LIMIT ?`)
        .all(limit);
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
