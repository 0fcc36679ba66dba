import type { Queue } from './db.js';
import { ITEM_STATES, type ItemState, type QueueCounts, type StateCounts } from './types.js';

/**
 * Items per state for each kind, and when the oldest waiting item was queued. Read
 * in one snapshot. `GROUP BY state` reads only the `(state, next_attempt_at)` index,
 * and the oldest waiting item is the first entry of the partial `*_waiting` index,
 * so `status` stays fast on a queue of a million detections.
 */
export function queueCounts(q: Queue): QueueCounts {
  return q.read(() => {
    const recordings = countByState(q, 'recordings');
    const detections = countByState(q, 'detections');
    const oldest = [oldestWaiting(q, 'recordings'), oldestWaiting(q, 'detections')].filter((t): t is number => t != null);
    return { recordings, detections, oldestPendingAt: oldest.length > 0 ? Math.min(...oldest) : null };
  });
}

function countByState(q: Queue, table: 'recordings' | 'detections'): StateCounts {
  const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as StateCounts;
  const rows = q.stmt(`SELECT state, COUNT(*) AS n FROM ${table} GROUP BY state`).all() as { state: ItemState; n: number }[];
  for (const row of rows) counts[row.state] = row.n;
  return counts;
}

function oldestWaiting(q: Queue, table: 'recordings' | 'detections'): number | null {
  // INDEXED BY: without statistics the planner prefers the state index and scans the backlog.
  const row = q
    .stmt(`SELECT MIN(created_at) AS t FROM ${table} INDEXED BY ${table}_waiting WHERE state IN ('pending', 'sending', 'unknown')`)
    .get() as { t: number | null };
  return row.t;
}
