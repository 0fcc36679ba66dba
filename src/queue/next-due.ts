import type { Queue } from './db.js';

/**
 * The earliest time after `now` at which a waiting item's backoff ends, so the
 * uploader can sleep until then instead of polling. Items already due but waiting
 * for something else (a detection for its recording) are not counted: the uploader
 * is woken when that something happens.
 */
export function nextDueAt(q: Queue, now: number = Date.now()): number | null {
  const row = q
    .stmt(
      `SELECT MIN(t) AS t FROM (` +
        `SELECT MIN(next_attempt_at) AS t FROM recordings WHERE state IN ('pending', 'unknown') AND next_attempt_at > @now ` +
        `UNION ALL ` +
        `SELECT MIN(next_attempt_at) AS t FROM detections WHERE state IN ('pending', 'unknown') AND next_attempt_at > @now)`,
    )
    .get({ now }) as { t: number | null } | undefined;
  return row?.t ?? null;
}
