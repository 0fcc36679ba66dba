import type { Queue } from './db.js';
import { releaseHolds } from './hold.js';
import { TABLE } from './rows.js';
import type { ItemKind } from './types.js';

/** A held item as a review sees it: enough to decide whether its reason still stands. */
export interface HeldItem {
  id: number;
  timestamp: string;
}

const REVIEW_PAGE = 500;

/**
 * Re-examines every item held for `reason` and releases (due now) those for which
 * `stillHeld` says no, a page at a time (memory stays flat however many are held).
 * Returns how many were released.
 */
export function reviewHolds(q: Queue, kind: ItemKind, reason: string, stillHeld: (item: HeldItem) => boolean, options: { now?: number } = {}): number {
  const now = options.now ?? Date.now();
  const page = q.stmt(`SELECT id, timestamp FROM ${TABLE[kind]} WHERE hold_reason = @reason AND id > @after AND state NOT IN ('uploaded', 'dropped') ORDER BY id LIMIT ${REVIEW_PAGE}`);
  let released = 0;
  for (let after = 0; ; ) {
    const items = page.all({ reason, after }) as HeldItem[];
    if (items.length === 0) return released;
    const ids = items.filter((item) => !stillHeld(item)).map((item) => item.id);
    released += releaseHolds(q, kind, { ids, reason }, { now, due: true }).length;
    after = items[items.length - 1].id;
  }
}
