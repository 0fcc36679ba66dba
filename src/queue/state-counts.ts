import type { Queue } from './db.js';
import { recountFirstWaiting } from './first-waiting.js';
import { recountWaitingSpool, type SpoolTotal } from './waiting-spool.js';
import { TABLE } from './rows.js';
import { ITEM_STATES, type ItemKind, type ItemState, type StateCounts } from './types.js';

/**
 * Items per kind and state, kept in the `state_counts` table by the queue's own
 * code, in the same transaction as the change: enqueue adds its inserts, and
 * `transitionWhere` (the one place states change) moves its rows from their
 * previous state (`prev_state`, set by the same UPDATE) to the new one. `status`
 * then reads 12 rows, where counting a million detections through an index takes
 * a few hundred milliseconds (seconds on a Pi Zero). Not a trigger: a trigger per
 * inserted detection triples the cost of ingest.
 *
 * The `pending` row counts `sending` items too (migration 8), and the `sending` row stays
 * 0: a claim (`pending -> sending`) and a retry (`sending -> pending`) then leave the table
 * alone, so the commit of a claim writes one page less. The few items in flight are
 * counted from their range of the `*_due` index when the counts are read.
 *
 * A state changed with raw SQL around the queue's functions makes the table drift;
 * {@link recountStates} rebuilds it (no command calls it yet: tests do).
 */
export type StateDeltas = Partial<Record<ItemState, number>>;

/** The row a state is kept in: `sending` in `pending`'s. */
const keptIn = (state: ItemState): ItemState => (state === 'sending' ? 'pending' : state);

/**
 * Moves the kept counts, and with `spool` the kept total of the waiting recordings' spool
 * files (waiting-spool.ts, on the same `pending` row: one UPDATE of it for both).
 */
export function addToStateCounts(q: Queue, kind: ItemKind, deltas: StateDeltas, spool?: SpoolTotal): void {
  const folded: StateDeltas = {};
  for (const [state, delta] of Object.entries(deltas) as [ItemState, number][]) {
    folded[keptIn(state)] = (folded[keptIn(state)] ?? 0) + delta;
  }
  const withSpool = spool != null && (spool.files !== 0 || spool.bytes !== 0);
  if (withSpool) {
    q.stmt(`UPDATE state_counts SET n = n + ?, spool_files = spool_files + ?, spool_bytes = spool_bytes + ? WHERE kind = ? AND state = 'pending'`).run(
      folded.pending ?? 0,
      spool.files,
      spool.bytes,
      kind,
    );
  }
  const update = q.stmt('UPDATE state_counts SET n = n + ? WHERE kind = ? AND state = ?');
  for (const [state, delta] of Object.entries(folded)) {
    if (delta && !(withSpool && state === 'pending')) update.run(delta, kind, state);
  }
}

/** The counts of one kind: the kept ones, with `sending` counted (and taken out of `pending`). Call it inside a read transaction. */
export function readStateCounts(q: Queue, kind: ItemKind): StateCounts {
  const counts = emptyCounts();
  for (const row of q.stmt('SELECT state, n FROM state_counts WHERE kind = ?').all(kind) as { state: ItemState; n: number }[]) {
    counts[row.state] = row.n;
  }
  // In flight only (the uploader's concurrency, or what a crash left before recovery): a short index range.
  const sending = q.stmt(`SELECT COUNT(*) FROM ${TABLE[kind]} WHERE waiting = 1 AND state = 'sending'`).pluck().get() as number;
  counts.pending += counts.sending - sending;
  counts.sending = sending;
  return counts;
}

/** Counts the tables (a scan of the state index) and rewrites the kept counts, first waiting items and waiting spool total. Returns whether they had drifted. */
export function recountStates(q: Queue): boolean {
  return q.write(() => {
    let drifted = false;
    for (const kind of ['recording', 'detection'] as const) {
      const counted = countTable(q, kind);
      const actual = { ...counted, pending: counted.pending + counted.sending, sending: 0 };
      const kept = emptyCounts();
      for (const row of q.stmt('SELECT state, n FROM state_counts WHERE kind = ?').all(kind) as { state: ItemState; n: number }[]) {
        kept[row.state] = row.n;
      }
      for (const state of ITEM_STATES) {
        if (actual[state] === kept[state]) continue;
        drifted = true;
        q.stmt('UPDATE state_counts SET n = ? WHERE kind = ? AND state = ?').run(actual[state], kind, state);
      }
      if (recountFirstWaiting(q, kind)) drifted = true;
    }
    if (recountWaitingSpool(q)) drifted = true;
    return drifted;
  });
}

/** Counts by scanning: the truth the kept counts must equal. */
export function countTable(q: Queue, kind: ItemKind): StateCounts {
  const counts = emptyCounts();
  const rows = q.stmt(`SELECT state, COUNT(*) AS n FROM ${TABLE[kind]} GROUP BY state`).all() as { state: ItemState; n: number }[];
  for (const row of rows) counts[row.state] = row.n;
  return counts;
}

function emptyCounts(): StateCounts {
  return Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as StateCounts;
}
