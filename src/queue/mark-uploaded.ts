import type { Queue } from './db.js';
import { QueueError } from './errors.js';
import { transition } from './state.js';
import type { ItemKind, ItemOf } from './types.js';

/** `sending -> uploaded`, storing the service's id in the same UPDATE. */
export function markUploaded<K extends ItemKind>(q: Queue, kind: K, id: number, remoteId: number, options: { now?: number } = {}): ItemOf<K> {
  if (!Number.isSafeInteger(remoteId) || remoteId < 1) {
    throw new QueueError('ERR_QUEUE_INVALID', `the service id of ${kind} ${id} must be a positive integer, got ${remoteId}`);
  }
  return transition(q, kind, id, 'uploaded', { remoteId }, { from: ['sending'], now: options.now });
}
