import type { Queue } from './db.js';
import { toRecording, type RecordingRow } from './rows.js';
import type { RecordingItem } from './types.js';

/**
 * The recording queued under `sourceKey`, if any. Ingest asks before spooling
 * audio, so ingesting a recording again neither copies its audio twice nor
 * resurrects a spool file that was already uploaded and removed.
 */
export function findRecordingBySourceKey(q: Queue, sourceKey: string): RecordingItem | undefined {
  const row = q.stmt(`SELECT * FROM recordings WHERE source_key = ?`).get(sourceKey) as RecordingRow | undefined;
  return row ? toRecording(row) : undefined;
}
