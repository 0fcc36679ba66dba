import {
  claimDetections,
  claimRecordings,
  isRemoteIdTaken,
  markFailed,
  markRetry,
  markUnknown,
  markUploaded,
  type Queue,
} from '../queue/index.js';
import { nextDueAt } from '../queue/next-due.js';
import type { UploadQueue } from './upload-queue.js';

/** The uploader's view of the SQLite queue: each call is one queue operation. */
export function bindUploadQueue(q: Queue, now: () => number = Date.now): UploadQueue {
  return {
    claimRecordings: (args) => claimRecordings(q, args),
    claimDetections: (args) => claimDetections(q, args),
    nextDueAt: () => nextDueAt(q, now()),
    markUploaded: (kind, id, remoteId) => void markUploaded(q, kind, id, remoteId, { now: now() }),
    retryLater: (kind, id, args) => void markRetry(q, kind, id, { ...args, now: now() }),
    outcomeUnknown: (kind, id, args) => void markUnknown(q, kind, id, { ...args, now: now() }),
    fail: (kind, id, args) => void markFailed(q, kind, id, { ...args, now: now() }),
    isRemoteIdTaken: (kind, remoteId) => isRemoteIdTaken(q, kind, remoteId),
  };
}
