import type { Queue } from './db.js';
import { TABLE } from './rows.js';
import type { ItemKind } from './types.js';

/**
 * Holding an item keeps it out of every claim without changing its state (e.g.
 * 'implausible-time': its recording's start was implausible when it was ingested).
 * A hold ends by a review (the daemon re-examines holds whose reason may have
 * cleared), by the operator (`queue release`), or by dropping the item. Uploaded and
 * dropped items are past holding and are left alone. Returns how many items
 * changed.
 */
export function hold(q: Queue, kind: ItemKind, ids: readonly number[], reason: string, options: { now?: number } = {}): number {
  if (ids.length === 0) return 0;
  return q
    .stmt(
      `UPDATE ${TABLE[kind]} SET hold_reason = @reason, updated_at = @now ` +
        `WHERE id IN (SELECT value FROM json_each(@ids)) AND state NOT IN ('uploaded', 'dropped')`,
    )
    .run({ reason, ids: JSON.stringify(ids), now: options.now ?? Date.now() }).changes;
}

/** Releases held items: by id, or every item held for `reason`. Returns how many changed. */
export function release(q: Queue, kind: ItemKind, which: readonly number[] | { reason: string }, options: { now?: number } = {}): number {
  const now = options.now ?? Date.now();
  if (Array.isArray(which)) {
    if (which.length === 0) return 0;
    return q
      .stmt(`UPDATE ${TABLE[kind]} SET hold_reason = NULL, updated_at = @now WHERE id IN (SELECT value FROM json_each(@ids)) AND hold_reason IS NOT NULL`)
      .run({ ids: JSON.stringify(which), now }).changes;
  }
  const { reason } = which as { reason: string };
  return q.stmt(`UPDATE ${TABLE[kind]} SET hold_reason = NULL, updated_at = @now WHERE hold_reason = @reason`).run({ reason, now }).changes;
}


/** Items held but still to be uploaded: the states a hold matters in (SQL over an item table). */
export const HELD = `hold_reason IS NOT NULL AND state NOT IN ('uploaded', 'dropped')`;
