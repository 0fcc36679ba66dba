import type { Queue } from './db.js';
import { hold } from './hold.js';
import { transitionWhere } from './state.js';
import type { ItemState } from './types.js';

export const PRIVACY_CODE = 'ERR_PRIVACY';
/** The hold of a recording the privacy policy withheld while a request with it was under way. */
export const PRIVACY_HOLD = 'privacy';

/**
 * What became of a queued recording that the privacy policy withholds after it was queued
 * (its result file was rewritten with a person in it):
 * - `dropped`: it was waiting (`pending`, `failed`): it is dropped, and its audio
 *   (`spoolPath`, the caller deletes it) is never uploaded;
 * - `held`: a request with it is under way (`sending`, `unknown`): it may reach the
 *   service; if it does not, the hold keeps it from every later claim;
 * - `uploaded`: the service has it already; nothing here can take it back;
 * - `gone`: it was dropped before.
 */
export type WithheldRecording =
  | { outcome: 'dropped'; spoolPath: string | null }
  | { outcome: 'held' | 'uploaded' | 'gone'; state: ItemState };

/** Withholds the soundscape of queued recording `id` (one transaction). */
export function withholdRecording(q: Queue, id: number, why: string, options: { now?: number } = {}): WithheldRecording {
  const now = options.now ?? Date.now();
  return q.write(() => {
    const before = q.stmt('SELECT state, spool_path FROM recordings WHERE id = ?').get(id) as { state: ItemState; spool_path: string | null } | undefined;
    if (!before) return { outcome: 'gone', state: 'dropped' };
    const [moved] = transitionWhere(q, 'recording', 'dropped', {
      from: ['pending', 'failed'],
      ids: '@id',
      params: { id },
      patch: { lastError: `privacy: ${why}; the soundscape is never uploaded`, lastErrorCode: PRIVACY_CODE, spoolPath: null },
      now,
    });
    if (moved) return { outcome: 'dropped', spoolPath: before.spool_path };
    if (before.state === 'sending' || before.state === 'unknown') {
      hold(q, 'recording', [id], PRIVACY_HOLD, { now });
      return { outcome: 'held', state: before.state };
    }
    return { outcome: before.state === 'uploaded' ? 'uploaded' : 'gone', state: before.state };
  });
}
