import type { Queue } from './db.js';
import { INCREMENT_ATTEMPTS, transition } from './state.js';
import type { ItemKind, ItemOf } from './types.js';

export interface FailedOutcome {
  error: string;
  code: string;
  now?: number;
}

/**
 * A terminal failure (422, invalid audio, unresolvable species): `sending -> failed`,
 * `attempts + 1`. Only an operator's `queue retry` moves it again.
 */
export function markFailed<K extends ItemKind>(q: Queue, kind: K, id: number, outcome: FailedOutcome): ItemOf<K> {
  return transition(
    q,
    kind,
    id,
    'failed',
    { attempts: INCREMENT_ATTEMPTS, lastError: outcome.error, lastErrorCode: outcome.code },
    { from: ['sending'], now: outcome.now },
  );
}
