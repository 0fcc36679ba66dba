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

/** Which held items a release ends the hold of: listed ids, those held for a reason, or both. */
interface HoldSelection {
  ids?: readonly number[];
  reason?: string;
}

/**
 * The one release of a hold: the items of `kind` that are held (and still to be
 * uploaded) and match `which` lose their hold; their state does not change. With
 * `due`, they are due now too (a review, the operator); the species gate's release keeps
 * their due time. Returns the ids released.
 * @example releaseHolds(q, 'detection', { reason: 'implausible-time', ids: [4, 9] }, { due: true })
 */
export function releaseHolds(q: Queue, kind: ItemKind, which: HoldSelection, options: { now?: number; due?: boolean } = {}): number[] {
  if (which.ids?.length === 0) return [];
  // Only the filters asked for are in the statement: `id IN (...)` over the primary key,
  // not an `@ids IS NULL OR ...` that would read the whole table.
  const where = [HELD, ...(which.ids ? ['id IN (SELECT value FROM json_each(@ids))'] : []), ...(which.reason !== undefined ? ['hold_reason = @reason'] : [])];
  const rows = q
    .stmt(`UPDATE ${TABLE[kind]} SET hold_reason = NULL, ${options.due ? 'next_attempt_at = @now, ' : ''}updated_at = @now WHERE ${where.join(' AND ')} RETURNING id`)
    .all({ ...(which.ids ? { ids: JSON.stringify(which.ids) } : {}), ...(which.reason !== undefined ? { reason: which.reason } : {}), now: options.now ?? Date.now() }) as { id: number }[];
  return rows.map((r) => r.id);
}

/** Items held but still to be uploaded: the states a hold matters in (SQL over an item table). */
export const HELD = `hold_reason IS NOT NULL AND state NOT IN ('uploaded', 'dropped')`;
