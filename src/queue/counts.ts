import type { Queue } from './db.js';
import { firstWaitingCreatedAt } from './first-waiting.js';
import { readStateCounts } from './state-counts.js';
import type { QueueCounts } from './types.js';

/**
 * Items per state for each kind, and when the oldest waiting item was queued, in
 * one snapshot. Constant time whatever the size of the queue: the counts are kept
 * in `state_counts` (state-counts.ts), and so is each kind's first waiting item in
 * queue order (first-waiting.ts): the item that has waited longest, a retried one
 * at its old place.
 */
export function queueCounts(q: Queue): QueueCounts {
  return q.read(() => {
    const oldest = [firstWaitingCreatedAt(q, 'recording'), firstWaitingCreatedAt(q, 'detection')].filter((t): t is number => t != null);
    return {
      recordings: readStateCounts(q, 'recording'),
      detections: readStateCounts(q, 'detection'),
      oldestPendingAt: oldest.length > 0 ? Math.min(...oldest) : null,
    };
  });
}
