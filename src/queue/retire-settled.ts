import type { Queue } from './db.js';
import { MQTT_STATE } from './mqtt-state.js';
import { addToStateCounts } from './state-counts.js';
import type { ItemState } from './types.js';

/** What one call retired. */
export interface RetiredRows {
  detections: number;
  recordings: number;
}

/**
 * Deletes settled rows older than `before` (epoch ms), so the queue database holds about
 * `queue.retainDays` of history and no more: SQLite reuses the freed pages for the rows that
 * come next, so the file stops growing there (docs/INSTALL.md, the queue's size).
 *
 * - A detection goes once it is `uploaded` or `dropped`, was created and last changed before
 *   `before`, and MQTT has nothing more to say about it. `failed` items stay: an operator
 *   may retry them.
 * - A recording goes on the same terms, once no detection points at it and its spooled
 *   audio is gone (`retention.keepUploadedDays` may keep it longer).
 *
 * Ids grow with time, so the rows old enough are the lowest ids: each kind is read in id
 * order up to its first row created since `before`, never the rest of the table. At most
 * `limit` rows of each kind per call, in one transaction: the caller calls again while
 * rows come back (a sweep between uploads, never one long write).
 */
export function retireSettled(q: Queue, options: { before: number; limit: number; now?: number }): RetiredRows {
  const { before, limit } = options;
  return q.write(() => {
    const detections = retire(
      q,
      'detection',
      `DELETE FROM detections WHERE id IN (
         SELECT id FROM detections
         WHERE id < @bound AND state IN ('uploaded', 'dropped') AND updated_at < @before AND mqtt_published = ${MQTT_STATE.updatePublished}
         ORDER BY id LIMIT @limit)
       RETURNING state`,
      `SELECT COALESCE((SELECT id FROM detections WHERE created_at >= @before ORDER BY id LIMIT 1), 9223372036854775807)`,
      before,
      limit,
    );
    const recordings = retire(
      q,
      'recording',
      `DELETE FROM recordings WHERE id IN (
         SELECT id FROM recordings r
         WHERE id < @bound AND state IN ('uploaded', 'dropped') AND updated_at < @before AND spool_path IS NULL
           AND NOT EXISTS (SELECT 1 FROM detections d WHERE d.recording_id = r.id)
         ORDER BY id LIMIT @limit)
       RETURNING state`,
      `SELECT COALESCE((SELECT id FROM recordings WHERE created_at >= @before ORDER BY id LIMIT 1), 9223372036854775807)`,
      before,
      limit,
    );
    return { detections, recordings };
  });
}

function retire(q: Queue, kind: 'detection' | 'recording', del: string, boundSql: string, before: number, limit: number): number {
  const bound = q.stmt(boundSql).pluck().get({ before }) as number;
  const rows = q.stmt(del).all({ bound, before, limit }) as { state: ItemState }[];
  if (rows.length === 0) return 0;
  const deltas: Partial<Record<ItemState, number>> = {};
  for (const { state } of rows) deltas[state] = (deltas[state] ?? 0) - 1;
  addToStateCounts(q, kind, deltas);
  return rows.length;
}
