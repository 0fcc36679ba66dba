import { QueueError } from './errors.js';
import { moveItem } from './state.js';
export function markUploaded(q, kind, id, remoteId, options = {}) {
    if (!Number.isSafeInteger(remoteId) || remoteId < 1) {
        throw new QueueError('ERR_QUEUE_INVALID', `the service id of ${kind} ${id} must be a positive integer, got ${remoteId}`);
    }
    moveItem(q, kind, id, 'uploaded', { remoteId }, { from: ['sending'], now: options.now });
}
