import type { Queue } from './db.js';

/**
 * The spool files of the waiting recordings (pending, sending, unknown), and their bytes,
 * kept as `state_counts.spool_files` and `spool_bytes` on the recording kind's `pending`
 * row (migration 14). `spoolUsage` (status, the daemon's disk monitor) then reads one row
 * for the backlog's audio, where it looked up the row of every waiting recording (30 ms of
 * `status` for 100,000). The settled recordings' files are few (retention removes them)
 * and read from their own index.
 *
 * Moved by `addToStateCounts` (state-counts.ts), in its UPDATE of that row, wherever a
 * waiting recording's spool file changes: ingest (enqueue.ts) and a recording leaving or
 * re-entering the waiting states (`transitionWhere`), both in commits that write
 * `state_counts` anyway; the rare swap of a file (the spool compaction's
 * `replaceWithFlac`). Nothing else may set `spool_path` or `filesize` on a
 * waiting recording; `recountStates` rebuilds the total after raw SQL.
 */
export interface SpoolTotal {
  files: number;
  bytes: number;
}

const ROW = `kind = 'recording' AND state = 'pending'`;

export function readWaitingSpool(q: Queue): SpoolTotal {
  return q.stmt(`SELECT spool_files AS files, spool_bytes AS bytes FROM state_counts WHERE ${ROW}`).get() as SpoolTotal;
}

/** The spool files among recording rows (as a statement returned them). */
export function spoolOf(rows: readonly { spool_path: string | null; filesize: number | null }[]): SpoolTotal {
  const total = { files: 0, bytes: 0 };
  for (const row of rows) {
    if (row.spool_path == null) continue;
    total.files += 1;
    total.bytes += row.filesize ?? 0;
  }
  return total;
}

/** Counted from the table (a read of every waiting recording: recountStates only). */
function countWaitingSpool(q: Queue): SpoolTotal {
  return q
    .stmt(`SELECT COUNT(*) AS files, COALESCE(SUM(filesize), 0) AS bytes FROM recordings WHERE waiting = 1 AND spool_path IS NOT NULL`)
    .get() as SpoolTotal;
}

/** Rewrites the kept total from the table; returns whether it had drifted. The caller holds the transaction. */
export function recountWaitingSpool(q: Queue): boolean {
  const actual = countWaitingSpool(q);
  const kept = readWaitingSpool(q);
  if (actual.files === kept.files && actual.bytes === kept.bytes) return false;
  q.stmt(`UPDATE state_counts SET spool_files = ?, spool_bytes = ? WHERE ${ROW}`).run(actual.files, actual.bytes);
  return true;
}
