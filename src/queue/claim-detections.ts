import { CLAIM_FROM, claimIds, direction, limitSql, sortClaimed, type ClaimOptions } from './claim.js';
import type { Queue } from './db.js';
import { SqlExpr, transitionWhere } from './state.js';
import type { ClaimedDetection } from './types.js';

/** How long a detection whose recording has no audio waits for the audio, by default. */
export const DEFAULT_NO_AUDIO_AFTER_MS = 10 * 60_000;

/** What a detection whose recording's audio may not come waits for (claims and `nextDueAt` alike). */
export interface DetectionWaitOptions {
  /**
   * A detection whose recording has no audio (`spool_path` null) is posted without
   * a soundscape once it has been queued this long (ms), in case the audio still
   * arrives. Default {@link DEFAULT_NO_AUDIO_AFTER_MS}.
   */
  noAudioAfterMs?: number;
  /**
   * The uploader holds audio back (an upload window for audio, the daily data budget):
   * detections waiting for their recording's upload go without a soundscape after
   * `noAudioAfterMs` too, like those whose recording has no audio.
   */
  audioHeld?: boolean;
  /**
   * No soundscape will be uploaded at all (`privacy.audio: never`, also for recordings
   * queued before the switch): no detection waits for its recording's audio or upload.
   */
  audioWithheld?: boolean;
}

export interface ClaimDetectionsOptions extends ClaimOptions, DetectionWaitOptions {}

/**
 * Claims due detections (`pending` or `unknown`, `next_attempt_at <= now`, not held)
 * whose recording allows them to go:
 *
 * - the recording is `uploaded`: posted with the soundscape's service id
 *   (`soundscapeRemoteId`) and the recording's start (`recordingTimestamp`);
 * - the recording is `failed` or `dropped`, or there is no recording: posted without;
 * - the recording has no audio and the detection was queued `noAudioAfterMs` ago:
 *   posted without;
 * - with `audioHeld`, the recording waits for its upload and the detection was
 *   queued `noAudioAfterMs` ago: posted without (the soundscape goes later, unlinked);
 * - with `audioWithheld`, whatever the recording waits for: posted without, at once.
 *
 * Otherwise the detection waits for its recording. Moves them to `sending` in one
 * UPDATE and reads their recordings in the same transaction. What a detection waits
 * for is kept in `detections.recording_wait` by triggers on the recording (see the
 * schema), so a claim never walks the detections that wait.
 */
export function claimDetections(q: Queue, options: ClaimDetectionsOptions): ClaimedDetection[] {
  const now = options.now ?? Date.now();
  const noAudioBefore = now - (options.noAudioAfterMs ?? DEFAULT_NO_AUDIO_AFTER_MS);
  const ids = claimSql(options);
  return q.write(() => {
    const claimed = transitionWhere(q, 'detection', 'sending', {
      ids,
      params: { now, no_audio_before: noAudioBefore },
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

/** The ids query of a claim, per order, limit and audio policy: built once (several claims per recording, few shapes). */
const claimSqls = new Map<string, string>();

function claimSql(options: ClaimDetectionsOptions): string {
  const key = `${options.order}|${options.limit}|${Boolean(options.audioHeld)}|${Boolean(options.audioWithheld)}`;
  let sql = claimSqls.get(key);
  if (sql !== undefined) return sql;
  const limit = limitSql(options.limit);
  const dir = direction(options.order);
  // recording_wait (kept by triggers from the recording's state and audio): 0 nothing
  // to wait for, 1 the recording's upload, 2 its audio.
  const branch = (state: string, wait: 0 | 1 | 2) =>
    `SELECT id, state, next_attempt_at FROM detections WHERE waiting = 1 AND state = '${state}' AND recording_wait = ${wait} ` +
    `AND next_attempt_at <= @now AND hold_reason IS NULL${wait !== 0 && !options.audioWithheld ? ' AND created_at <= @no_audio_before' : ''} ` +
    `ORDER BY next_attempt_at ${dir}, id ${dir} ${limit}`;
  const waits: (0 | 1 | 2)[] = options.audioHeld || options.audioWithheld ? [0, 2, 1] : [0, 2];
  sql = claimIds(
    CLAIM_FROM.flatMap((state) => waits.map((wait) => branch(state, wait))),
    dir,
    options.limit,
  );
  claimSqls.set(key, sql);
  return sql;
}
