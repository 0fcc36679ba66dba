import type { Queue } from './db.js';
import { UPDATE_DUE_STATES, inOutbox } from './mqtt-state.js';
import type { NewDetection } from './types.js';

/** A detection whose MQTT message is still to be published: what was queued of it, with its id and queue time. */
export interface OutboxDetection extends Pick<NewDetection, 'timestamp' | 'startS' | 'endS' | 'scientificName' | 'commonName' | 'confidence'> {
  id: number;
  createdAt: number;
}

/** A published detection that reached its end (uploaded or dropped): its update is still to be published. */
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

/** The oldest detections in `notPublished` (mqtt-state.ts), in queue order. */
export function detectionsToPublish(q: Queue, limit: number): OutboxDetection[] {
  const rows = q
    .stmt(
      `SELECT id, timestamp, start_s, end_s, scientific_name, common_name, confidence, created_at
       FROM detections INDEXED BY detections_mqtt WHERE ${inOutbox('notPublished')} ORDER BY id LIMIT ?`,
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

/** Detections in `detectionPublished` that were uploaded or dropped since, oldest first. */
export function updatesToPublish(q: Queue, limit: number): OutboxUpdate[] {
  const rows = q
    .stmt(
      `SELECT d.id, d.state, d.remote_id, r.remote_id AS soundscape_id, d.timestamp, d.scientific_name, d.common_name, d.updated_at
       FROM detections d INDEXED BY detections_mqtt LEFT JOIN recordings r ON r.id = d.recording_id
       WHERE ${inOutbox('detectionPublished', 'd.')} AND d.state IN ${UPDATE_DUE_STATES} ORDER BY d.id LIMIT ?`,
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
