import {
  claimDetections,
  claimEncoded,
  claimRecordings,
  isRemoteIdTaken,
  markFailed,
  markRetry,
  markUnencodable,
  markUnknown,
  markUploaded,
  wavRecordingsDue,
  type Queue,
} from '../queue/index.js';
import { nextDueAt } from '../queue/next-due.js';
import { OuterTransaction } from '../queue/transaction.js';
import type { UploadQueue } from './upload-queue.js';

/** The uploader's view of the SQLite queue: each call is one queue operation (a savepoint inside a group commit), stamped with the time. */
export function bindUploadQueue(q: Queue, now: () => number = Date.now): UploadQueue {
  return {
    // Durable before the requests it claims go out: never a savepoint of another transaction.
    commit: (fn, options) => OuterTransaction.run(q, 'a group commit', fn, options),
    write: (fn) => q.write(fn),
    totalChanges: () => q.totalChanges(),
    syncWal: () => q.syncWal(),
    claimRecordings: (args) => claimRecordings(q, args),
    claimDetections: (args) => claimDetections(q, args),
    wavRecordingsDue: (args) => wavRecordingsDue(q, args),
    claimEncoded: (args) => claimEncoded(q, args),
    markUnencodable: (id, spoolPath, args) => markUnencodable(q, id, spoolPath, { ...args, now: now() }),
    nextDueAt: ({ now, ...waits }) => nextDueAt(q, now, waits),
    markUploaded: (kind, id, remoteId, sentBytes) => void markUploaded(q, kind, id, remoteId, { now: now(), sentBytes }),
    markRetry: (kind, id, args) => void markRetry(q, kind, id, { ...args, now: now() }),
    markUnknown: (kind, id, args) => void markUnknown(q, kind, id, { ...args, now: now() }),
    markFailed: (kind, id, args) => void markFailed(q, kind, id, { ...args, now: now() }),
    isRemoteIdTaken: (kind, remoteId) => isRemoteIdTaken(q, kind, remoteId),
  };
}
