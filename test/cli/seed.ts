import path from 'node:path';
import {
  enqueueRecording,
  markFailed,
  markUploaded,
  openQueue,
  setMeta,
  transition,
  type ItemKind,
  type NewDetection,
  type NewRecording,
  type Queue,
} from '../../src/queue/index.js';
import { queueDbPath } from '../../src/status/queue-file.js';

/**
 * Real queue files for the CLI's tests, filled through the queue's own functions
 * (enqueue, then the state machine's transitions), never with raw SQL.
 */

export function openTestQueue(dataDir: string): Queue {
  return openQueue(queueDbPath(dataDir));
}

export function recording(n: number, dir = '/input'): NewRecording {
  const minute = String(n % 60).padStart(2, '0');
  return {
    sourceKey: `rec-${n}`,
    sourcePath: path.join(dir, `2025-05-01-birdnet-06:${minute}:00.wav`),
    spoolPath: `/spool/rec-${n}.flac`,
    audioFormat: 'flac',
    timestamp: `2025-05-01T06:${minute}:00.000+02:00`,
    timeSource: 'filename',
    durationS: 15,
    sampleRate: 48_000,
    filesize: 100_000,
  };
}

export function detection(n: number, i: number, species: [string, string] = ['Pica pica', 'Eurasian Magpie']): NewDetection {
  const minute = String(n % 60).padStart(2, '0');
  return {
    dedupeKey: `rec-${n}|${i}|${species[0]}`,
    timestamp: `2025-05-01T06:${minute}:${String(i * 3).padStart(2, '0')}.000+02:00`,
    startS: i * 3,
    endS: i * 3 + 3,
    scientificName: species[0],
    commonName: species[1],
    confidence: 0.9,
    lat: 52.52,
    lon: 13.4,
  };
}

/** Queues `recordings` recordings with `perRecording` detections each; returns their ids. */
export function seed(q: Queue, recordings: number, perRecording: number): { recordingIds: number[]; detectionIds: number[] } {
  const recordingIds: number[] = [];
  const detectionIds: number[] = [];
  for (let n = 1; n <= recordings; n++) {
    const result = enqueueRecording(q, { recording: recording(n), detections: Array.from({ length: perRecording }, (_, i) => detection(n, i)) });
    recordingIds.push(result.recordingId!);
  }
  const rows = q.db.prepare('SELECT id FROM detections ORDER BY id').all() as { id: number }[];
  detectionIds.push(...rows.map((r) => r.id));
  return { recordingIds, detectionIds };
}

/** pending -> sending -> failed, the way the uploader fails an item. */
export function fail(q: Queue, kind: ItemKind, id: number, error = 'HTTP 422: species must exist', code = 'ERR_HTTP_STATUS'): void {
  transition(q, kind, id, 'sending', {}, { from: ['pending'] });
  markFailed(q, kind, id, { error, code });
}

/** pending -> sending -> uploaded with the service's id. */
export function upload(q: Queue, kind: ItemKind, id: number, remoteId: number): void {
  transition(q, kind, id, 'sending', {}, { from: ['pending'] });
  markUploaded(q, kind, id, remoteId);
}

export { setMeta };
