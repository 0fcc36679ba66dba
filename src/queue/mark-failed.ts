import type { Queue } from './db.js';
import { INCREMENT_ATTEMPTS, transition, transitionWhere } from './state.js';
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

/**
 * A recording whose audio cannot be encoded (not a valid WAV, or its spool file is gone),
 * found by the encode step before any request: `pending -> failed`, `attempts + 1`. Only
 * while its spool file is still `spoolPath` (the file that failed). Its detections then
 * go without a soundscape. Returns false when the recording moved on meanwhile.
 */
export function markUnencodable(q: Queue, id: number, spoolPath: string, outcome: FailedOutcome): boolean {
  return (
    transitionWhere(q, 'recording', 'failed', {
      from: ['pending'],
      ids: '@id',
      where: 'spool_path = @spool_path',
      params: { id, spool_path: spoolPath },
      patch: { attempts: INCREMENT_ATTEMPTS, lastError: outcome.error, lastErrorCode: outcome.code },
      now: outcome.now,
    }).length === 1
  );
}
