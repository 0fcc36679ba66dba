import type { Queue } from './db.js';
import { INCREMENT_ATTEMPTS, transition } from './state.js';
import type { ItemKind, ItemOf } from './types.js';

export interface UnknownOutcome {
  error: string;
  code: string;
  /** Epoch ms before which the item is not reconciled (give the service time to finish). Default now. */
  nextAttemptAt?: number;
  now?: number;
}

/** Sent, but no complete response: `sending -> unknown`, `attempts + 1`. The next claim reconciles. */
export function markUnknown<K extends ItemKind>(q: Queue, kind: K, id: number, outcome: UnknownOutcome): ItemOf<K> {
  const now = outcome.now ?? Date.now();
  return transition(
    q,
    kind,
    id,
    'unknown',
    { attempts: INCREMENT_ATTEMPTS, lastError: outcome.error, lastErrorCode: outcome.code, nextAttemptAt: outcome.nextAttemptAt ?? now },
    { from: ['sending'], now },
  );
}
