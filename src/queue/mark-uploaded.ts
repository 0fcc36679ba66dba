import type { Queue } from './db.js';
import { QueueError } from './errors.js';
import { moveItem } from './state.js';
import type { ItemKind } from './types.js';

/**
 * `sending -> uploaded`, storing the service's id in the same UPDATE (and for a recording
 * the bytes of the FLAC sent, when known: what the delivery audit holds the service's
 * filesize against). Returns nothing: its callers need no row back.
 */
export function markUploaded(q: Queue, kind: ItemKind, id: number, remoteId: number, options: { now?: number; sentBytes?: number } = {}): void {
  if (!Number.isSafeInteger(remoteId) || remoteId < 1) {
    throw new QueueError('ERR_QUEUE_INVALID', `the service id of ${kind} ${id} must be a positive integer, got ${remoteId}`);
  }
  const patch = kind === 'recording' && options.sentBytes !== undefined ? { remoteId, sentBytes: options.sentBytes } : { remoteId };
  moveItem(q, kind, id, 'uploaded', patch, { from: ['sending'], now: options.now });
}
