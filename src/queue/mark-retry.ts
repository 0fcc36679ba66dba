import type { Queue } from './db.js';
import { TABLE } from './rows.js';
import { INCREMENT_ATTEMPTS, transition } from './state.js';
import type { ItemKind, ItemOf } from './types.js';

export interface RetryOutcome {
  error: string;
  code: string;
  /** Epoch ms of the next attempt (the uploader's backoff). */
  nextAttemptAt: number;
  now?: number;
}

/**
 * A transient failure: `attempts + 1`, the error, the next attempt time, and back
 * to `pending`. An item claimed for reconciliation goes back to `unknown` instead:
 * its earlier send may still have arrived, so the next claim must look it up again
 * before posting.
 */
export function markRetry<K extends ItemKind>(q: Queue, kind: K, id: number, outcome: RetryOutcome): ItemOf<K> {
  return q.write(() => {
    const row = q.stmt(`SELECT reconcile FROM ${TABLE[kind]} WHERE id = ?`).get(id) as
      | { reconcile: number }
      | undefined;
    const to = row?.reconcile === 1 ? 'unknown' : 'pending';
    return transition(
      q,
      kind,
      id,
      to,
      { attempts: INCREMENT_ATTEMPTS, lastError: outcome.error, lastErrorCode: outcome.code, nextAttemptAt: outcome.nextAttemptAt },
      { from: ['sending'], now: outcome.now },
    );
  });
}
