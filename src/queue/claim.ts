import { QueueError } from './errors.js';
import { allowedFrom } from './state.js';
import type { ItemBase, ItemState } from './types.js';

/**
 * What the two claim operations share: the order options and the shape of the
 * "due" query.
 *
 * Claims read the `(state, next_attempt_at)` index in order and stop after `limit`
 * due rows, so a claim costs the same on a backlog of a million items as on an
 * empty queue. `unknown` items (reconciliations, few) are taken before `pending`
 * ones; each state is its own index range, joined with UNION ALL so neither needs
 * a sort.
 */
export type ClaimOrder = 'newest' | 'oldest';

export interface ClaimOptions {
  /** Epoch ms; items with `next_attempt_at <= now` are due. Default now. */
  now?: number;
  /** At most this many items. */
  limit: number;
  /**
   * `oldest`: the item due longest first (first in, first out: a new item is due
   * when queued, a retried one when its backoff ends). `newest`: the most recently
   * due first, so that new recordings are not starved behind a backlog. The
   * uploader mixes both.
   */
  order: ClaimOrder;
}

/** The states a claim moves to `sending`, reconciliations first. Checked against the state machine. */
export const CLAIM_FROM = ['unknown', 'pending'] as const satisfies readonly ItemState[];

{
  const table = allowedFrom('sending');
  if (table.length !== CLAIM_FROM.length || !CLAIM_FROM.every((s) => table.includes(s))) {
    throw new Error(`claim states [${CLAIM_FROM.join(', ')}] differ from the state machine's [${table.join(', ')}]`);
  }
}

export function direction(order: ClaimOrder): 'ASC' | 'DESC' {
  if (order === 'oldest') return 'ASC';
  if (order === 'newest') return 'DESC';
  throw new QueueError('ERR_QUEUE_INVALID', `claim order must be 'newest' or 'oldest', got ${JSON.stringify(order)}`);
}

export function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new QueueError('ERR_QUEUE_INVALID', `claim limit must be a positive integer, got ${limit}`);
  }
}

/**
 * `id IN (...)` over the due items of each claimable state: `select(state)` must
 * return one ordered, limited SELECT of ids for that state.
 */
export function dueIds(select: (state: ItemState) => string): string {
  return `id IN (${CLAIM_FROM.map((state) => `SELECT id FROM (${select(state)})`).join(' UNION ALL ')} LIMIT @limit)`;
}

/** Puts claimed items in claim order (RETURNING gives no order): reconciliations, then by due time. */
export function sortClaimed<T extends ItemBase>(items: T[], order: ClaimOrder): T[] {
  const sign = order === 'oldest' ? 1 : -1;
  return items.sort(
    (a, b) => Number(b.reconcile) - Number(a.reconcile) || sign * (a.nextAttemptAt - b.nextAttemptAt) || sign * (a.id - b.id),
  );
}
