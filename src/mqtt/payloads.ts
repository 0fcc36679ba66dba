import type { OutboxDetection, OutboxUpdate } from '../queue/index.js';
import type { DetectionPayload, DetectionUpdatePayload, StationRef } from './topics.js';

/** The detection message, from the queue's row (docs/MQTT.md shows an example). */
export function detectionPayload(d: OutboxDetection, station: StationRef): DetectionPayload {
  return {
    event: 'detected',
    id: d.id,
    species: d.commonName,
    scientificName: d.scientificName,
    confidence: d.confidence,
    timestamp: d.timestamp,
    startS: d.startS,
    endS: d.endS,
    station,
    queuedAt: new Date(d.createdAt).toISOString(),
  };
}

/** The update with the service's ids (or that the detection was dropped). */
export function updatePayload(u: OutboxUpdate, station: StationRef): DetectionUpdatePayload {
  return {
    event: u.state,
    id: u.id,
    detectionId: u.remoteId,
    soundscapeId: u.soundscapeId,
    species: u.commonName,
    scientificName: u.scientificName,
    timestamp: u.timestamp,
    station,
    at: new Date(u.updatedAt).toISOString(),
  };
}
