import { checkLimit, dueIds, direction, sortClaimed, type ClaimOptions } from './claim.js';
import type { Queue } from './db.js';
import { SqlExpr, transitionWhere } from './state.js';
import type { ClaimedDetection } from './types.js';

/** How long a detection whose recording has no audio waits for the audio, by default. */
export const DEFAULT_NO_AUDIO_AFTER_MS = 10 * 60_000;

export interface ClaimDetectionsOptions extends ClaimOptions {
  /**
   * A detection whose recording has no audio (`spool_path` null) is posted without
   * a soundscape once it has been queued this long (ms), in case the audio still
   * arrives. Default {@link DEFAULT_NO_AUDIO_AFTER_MS}.
   */
  noAudioAfterMs?: number;
}

/**
 * Claims due detections (`pending` or `unknown`, `next_attempt_at <= now`, not held)
 * whose recording allows them to go:
 *
 * - the recording is `uploaded`: posted with the soundscape's service id
 *   (`soundscapeRemoteId`) and the recording's start (`recordingTimestamp`);
 * - the recording is `failed` or `dropped`, or there is no recording: posted without;
 * - the recording has no audio and the detection was queued `noAudioAfterMs` ago:
 *   posted without.
 *
 * Otherwise the detection waits for its recording. Moves them to `sending` in one
 * UPDATE and reads their recordings in the same transaction.
 */
export function claimDetections(q: Queue, options: ClaimDetectionsOptions): ClaimedDetection[] {
  checkLimit(options.limit);
  const dir = direction(options.order);
  const now = options.now ?? Date.now();
  const noAudioBefore = now - (options.noAudioAfterMs ?? DEFAULT_NO_AUDIO_AFTER_MS);
  const where = dueIds(
    (state) =>
      `SELECT d.id FROM detections d LEFT JOIN recordings r ON r.id = d.recording_id ` +
      `WHERE d.state = '${state}' AND d.next_attempt_at <= @now AND d.hold_reason IS NULL ` +
      `AND (d.recording_id IS NULL OR r.state IN ('uploaded', 'failed', 'dropped') ` +
      `OR (r.spool_path IS NULL AND d.created_at <= @no_audio_before)) ` +
      `ORDER BY d.next_attempt_at ${dir}, d.id ${dir} LIMIT @limit`,
  );
  return q.write(() => {
    const claimed = transitionWhere(q, 'detection', 'sending', {
      where,
      params: { now, limit: options.limit, no_audio_before: noAudioBefore },
      patch: { reconcile: new SqlExpr(`state = 'unknown'`) },
      now,
    });
    const recordingIds = [...new Set(claimed.flatMap((d) => (d.recordingId == null ? [] : [d.recordingId])))];
    const recordings = new Map<number, { state: string; remote_id: number | null; timestamp: string }>();
    if (recordingIds.length > 0) {
      const rows = q
        .stmt('SELECT id, state, remote_id, timestamp FROM recordings WHERE id IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify(recordingIds)) as { id: number; state: string; remote_id: number | null; timestamp: string }[];
      for (const row of rows) recordings.set(row.id, row);
    }
    const result = claimed.map((d): ClaimedDetection => {
      const r = d.recordingId == null ? undefined : recordings.get(d.recordingId);
      return {
        ...d,
        soundscapeRemoteId: r?.state === 'uploaded' ? r.remote_id : null,
        recordingTimestamp: r?.timestamp ?? null,
      };
    });
    return sortClaimed(result, options.order);
  });
}
