import { checkLimit, dueIds, direction, sortClaimed, type ClaimOptions } from './claim.js';
import type { Queue } from './db.js';
import { SqlExpr, transitionWhere } from './state.js';
import type { RecordingItem } from './types.js';

/**
 * Claims due recordings for upload: `pending` or `unknown`, `next_attempt_at <= now`,
 * not held, with FLAC audio in the spool (WAV is claimed for encoding first, see
 * encoding.ts; a recording without audio is never uploaded). They move to `sending`
 * in one UPDATE; those that came from `unknown` have `reconcile: true` (look them
 * up at the service before posting again).
 */
export function claimRecordings(q: Queue, options: ClaimOptions): RecordingItem[] {
  checkLimit(options.limit);
  const dir = direction(options.order);
  const now = options.now ?? Date.now();
  const where = dueIds(
    (state) =>
      `SELECT id FROM recordings WHERE state = '${state}' AND next_attempt_at <= @now AND hold_reason IS NULL ` +
      `AND spool_path IS NOT NULL AND audio_format = 'flac' ORDER BY next_attempt_at ${dir}, id ${dir} LIMIT @limit`,
  );
  const claimed = transitionWhere(q, 'recording', 'sending', {
    where,
    params: { now, limit: options.limit },
    patch: { reconcile: new SqlExpr(`state = 'unknown'`) },
    now,
  });
  return sortClaimed(claimed, options.order);
}
