import type { Queue } from './db.js';
import { readStateCounts } from './state-counts.js';
import type { QueueCounts } from './types.js';

/**
 * Items per state for each kind, and when the oldest waiting item was queued, in
 * one snapshot. Constant time whatever the size of the queue: the counts are kept
 * in `state_counts` (state-counts.ts), and the oldest waiting item is read from the
 * claim index (`*_due`), which holds the waiting items only (`waiting = 1`: pending,
 * sending or unknown) and covers `created_at`: the backlog's entries, never the history.
 */
export function queueCounts(q: Queue): QueueCounts {
  return q.read(() => {
    const oldest = [oldestWaiting(q, 'recordings'), oldestWaiting(q, 'detections')].filter((t): t is number => t != null);
    return {
      recordings: readStateCounts(q, 'recording'),
      detections: readStateCounts(q, 'detection'),
      oldestPendingAt: oldest.length > 0 ? Math.min(...oldest) : null,
    };
  });
}

function oldestWaiting(q: Queue, table: 'recordings' | 'detections'): number | null {
  // INDEXED BY: without statistics the planner prefers the state index and scans the backlog.
  const row = q
    .stmt(`SELECT MIN(created_at) AS t FROM ${table} INDEXED BY ${table}_due WHERE waiting = 1`)
    .get() as { t: number | null };
  return row.t;
}
