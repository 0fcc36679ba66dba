import type { Queue } from './db.js';
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
 * A state changed with raw SQL around the queue's functions makes the table drift;
 * {@link recountStates} rebuilds it (no command calls it yet: tests do).
 */
export type StateDeltas = Partial<Record<ItemState, number>>;

export function addToStateCounts(q: Queue, kind: ItemKind, deltas: StateDeltas): void {
  const update = q.stmt('UPDATE state_counts SET n = n + ? WHERE kind = ? AND state = ?');
  for (const [state, delta] of Object.entries(deltas)) {
    if (delta) update.run(delta, kind, state);
  }
}

/** The kept counts of one kind. */
export function readStateCounts(q: Queue, kind: ItemKind): StateCounts {
  const counts = emptyCounts();
  for (const row of q.stmt('SELECT state, n FROM state_counts WHERE kind = ?').all(kind) as { state: ItemState; n: number }[]) {
    counts[row.state] = row.n;
  }
  return counts;
}

/** Counts the tables (a scan of the state index) and rewrites the kept counts. Returns whether they had drifted. */
export function recountStates(q: Queue): boolean {
  return q.write(() => {
    let drifted = false;
    for (const kind of ['recording', 'detection'] as const) {
      const actual = countTable(q, kind);
      const kept = readStateCounts(q, kind);
      for (const state of ITEM_STATES) {
        if (actual[state] === kept[state]) continue;
        drifted = true;
        q.stmt('UPDATE state_counts SET n = ? WHERE kind = ? AND state = ?').run(actual[state], kind, state);
      }
    }
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
