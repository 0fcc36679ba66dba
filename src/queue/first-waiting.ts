import type { Queue } from './db.js';
import { TABLE } from './rows.js';
import type { ItemKind } from './types.js';

/**
 * The first waiting item of each kind in queue order (rowid: the order items were
 * queued in, whatever the clock said), kept as `state_counts.first_waiting_id` on the
 * kind's `pending` row (migration 13). `status`, the metrics and the alerts then find the
 * oldest waiting item in one seek, where a read of the claim index took every entry of
 * the backlog (80 ms for a million waiting detections); and the kept id costs no page:
 * it changes only where `state_counts` is written anyway (an item leaving or re-entering
 * the waiting states, in `transitionWhere`).
 *
 * The rule it keeps: no item below the kept id waits. Enqueue leaves it alone (a new row's
 * id is above every other, and the kept id is at most one past the last id: rows are never
 * deleted, so SQLite never hands out an id below it again). Settling the item at the
 * kept id moves it on to the next waiting one; an operator's retry of an older item moves
 * it back to that item, which is then the oldest waiting again.
 *
 * Queue order, not the smallest `created_at`: a Pi booted before NTP stamps its items with
 * a clock that is behind, and those must not look older than what has waited since before.
 */

/** How far past a settled first item the table is read before asking the claim index instead. */
const WINDOW = 1_000;

function keptId(q: Queue, kind: ItemKind): number {
  return q.stmt(`SELECT first_waiting_id FROM state_counts WHERE kind = ? AND state = 'pending'`).pluck().get(kind) as number;
}

function keep(q: Queue, kind: ItemKind, id: number): void {
  q.stmt(`UPDATE state_counts SET first_waiting_id = ? WHERE kind = ? AND state = 'pending'`).run(id, kind);
}

/**
 * After `ids` left the waiting states: when one of them was the first waiting item, the
 * next one. The table is read from there in rowid order, at most {@link WINDOW} rows
 * (in a drain, the items just settled; a few pages in the cache); past that (the newest
 * were uploaded first, or the first item waited for days), the claim index, which holds the
 * backlog only. The caller holds the transaction.
 */
export function settledFirstWaiting(q: Queue, kind: ItemKind, ids: readonly number[]): void {
  const kept = keptId(q, kind);
  if (!ids.includes(kept)) return;
  const table = TABLE[kind];
  // NOT INDEXED: a rowid range; the planner would otherwise read the partial claim index whole.
  const window = q
    .stmt(
      `SELECT MIN(CASE WHEN waiting = 1 THEN id END) AS next, COUNT(*) AS n, MAX(id) AS last ` +
        `FROM (SELECT id, waiting FROM ${table} NOT INDEXED WHERE id > ? ORDER BY id LIMIT ${WINDOW})`,
    )
    .get(kept) as { next: number | null; n: number; last: number | null };
  let next = window.next;
  if (next == null && window.n === WINDOW) {
    next = q.stmt(`SELECT MIN(id) FROM ${table} INDEXED BY ${table}_due WHERE waiting = 1`).pluck().get() as number | null;
  }
  if (next == null) next = (q.stmt(`SELECT MAX(id) FROM ${table}`).pluck().get() as number) + 1;
  keep(q, kind, next);
}

/** After `ids` came back to the waiting states (an operator's retry): the first of them when it is older. The caller holds the transaction. */
export function requeuedFirstWaiting(q: Queue, kind: ItemKind, ids: readonly number[]): void {
  const oldest = Math.min(...ids);
  if (oldest < keptId(q, kind)) keep(q, kind, oldest);
}

/** When the first waiting item of the kind was queued (its `created_at`); null when none waits. */
export function firstWaitingCreatedAt(q: Queue, kind: ItemKind): number | null {
  const table = TABLE[kind];
  // From the kept id on: it is the first waiting item, unless raw SQL went around the queue
  // (then the next waiting row, found by reading on; recountStates puts the kept id right).
  const row = q
    .stmt(
      `SELECT created_at FROM ${table} NOT INDEXED WHERE id >= (` +
        `SELECT first_waiting_id FROM state_counts WHERE kind = ? AND state = 'pending') AND waiting = 1 ORDER BY id LIMIT 1`,
    )
    .get(kind) as { created_at: number } | undefined;
  return row?.created_at ?? null;
}

/** The first waiting id as counted from the table (a scan: migration 13 and recountStates only). */
function countFirstWaiting(q: Queue, kind: ItemKind): number {
  const table = TABLE[kind];
  return q
    .stmt(`SELECT COALESCE((SELECT MIN(id) FROM ${table} WHERE waiting = 1), (SELECT COALESCE(MAX(id), 0) + 1 FROM ${table}))`)
    .pluck()
    .get() as number;
}

/** Rewrites the kept id from the table; returns whether it had drifted. The caller holds the transaction. */
export function recountFirstWaiting(q: Queue, kind: ItemKind): boolean {
  const actual = countFirstWaiting(q, kind);
  if (actual === keptId(q, kind)) return false;
  keep(q, kind, actual);
  return true;
}
