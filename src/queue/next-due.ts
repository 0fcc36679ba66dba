import { CLAIM_FROM } from './claim.js';
import type { Queue } from './db.js';

/**
 * The earliest time after `now` at which a waiting item's backoff ends, so the
 * uploader can sleep until then instead of polling. Items already due but waiting
 * for something else (a detection for its recording) are not counted: the uploader
 * is woken when that something happens.
 *
 * Only the index ranges claims read are looked at (FLAC recordings; detections
 * waiting for nothing or for audio), each with its own MIN so that every one is a
 * single index seek, however long the backlog.
 */
export function nextDueAt(q: Queue, now: number = Date.now()): number | null {
  const row = q.stmt(NEXT_DUE).get({ now }) as { t: number | null } | undefined;
  return row?.t ?? null;
}

const ranges = [
  ...CLAIM_FROM.map((state) => `FROM recordings WHERE state = '${state}' AND audio_stage = 2`),
  ...CLAIM_FROM.flatMap((state) => [0, 2].map((wait) => `FROM detections WHERE state = '${state}' AND recording_wait = ${wait}`)),
];

const NEXT_DUE =
  `SELECT MIN(t) AS t FROM (` +
  ranges.map((range) => `SELECT MIN(next_attempt_at) AS t ${range} AND next_attempt_at > @now`).join(' UNION ALL ') +
  `)`;
