import { QueueError } from './errors.js';
import { allowedFrom } from './state.js';
import type { ItemBase, ItemState } from './types.js';

/**
 * What the two claim operations share: the order options and the shape of the
 * "due" query.
 *
 * Claims read the `*_due` index, `(state, stage, next_attempt_at)`, in order and stop
 * after `limit` due rows, so a claim costs the same on a backlog of a million items
 * as on an empty queue: items that cannot go yet (a recording without audio, a
 * detection waiting for its recording) sit in other index ranges and are never
 * read. `unknown` items (reconciliations, few) are taken before `pending` ones.
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
 * `LIMIT n` written into the SQL, never bound: SQLite's planner reads the value of a bound
 * LIMIT of a compound select (to push it into the branches), and a statement whose plan
 * read a parameter is compiled again whenever that parameter is bound, on every run:
 * some 100 microseconds per claim here, several claims per recording. The text then
 * differs by limit, so a few statements are cached (the limit is at most the upload
 * concurrency). Checked with {@link checkLimit} first.
 */
export function limitSql(limit: number): string {
  checkLimit(limit);
  return `LIMIT ${limit}`;
}

/**
 * The ids to claim: each branch is one ordered, limited index range
 * (`SELECT id, state, next_attempt_at ... ORDER BY ... LIMIT n`); the union of
 * at most `limit` rows per branch is put in claim order (reconciliations first) and
 * cut to `limit`. Only that small union is sorted.
 */
export function claimIds(branches: readonly string[], dir: 'ASC' | 'DESC', limit: number): string {
  const union = branches.map((branch) => `SELECT * FROM (${branch})`).join(' UNION ALL ');
  return `SELECT id FROM (${union}) ORDER BY state = 'unknown' DESC, next_attempt_at ${dir}, id ${dir} ${limitSql(limit)}`;
}

/** Puts claimed items in claim order (RETURNING gives no order): reconciliations, then by due time. */
export function sortClaimed<T extends ItemBase>(items: T[], order: ClaimOrder): T[] {
  const sign = order === 'oldest' ? 1 : -1;
  return items.sort(
    (a, b) => Number(b.reconcile) - Number(a.reconcile) || sign * (a.nextAttemptAt - b.nextAttemptAt) || sign * (a.id - b.id),
  );
}
