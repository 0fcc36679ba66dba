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

/** The uploader's view of the SQLite queue: each call is one queue operation (a savepoint inside a group commit). */
export function bindUploadQueue(q: Queue, now: () => number = Date.now): UploadQueue {
  // A transaction function called inside a transaction is a savepoint (better-sqlite3). One,
  // made once and given the write to run: `db.transaction(fn)` builds five wrappers per call,
  // and a pass runs one savepoint per outcome and one for its claims.
  const inSavepoint = q.db.transaction((write: () => unknown) => write());
  return {
    // Durable before the requests it claims go out: never a savepoint of another transaction.
    commit: (fn, options) => OuterTransaction.run(q, 'a group commit', fn, options),
    savepoint: <T>(fn: () => T) => inSavepoint.immediate(fn) as T,
    changes: () => q.stmt('SELECT total_changes()').pluck().get() as number,
    sync: () => q.syncWal(),
    claimRecordings: (args) => claimRecordings(q, args),
    claimDetections: (args) => claimDetections(q, args),
    wavRecordingsDue: (args) => wavRecordingsDue(q, args),
    claimEncoded: (args) => claimEncoded(q, args),
    failUnencodable: (id, spoolPath, args) => markUnencodable(q, id, spoolPath, { ...args, now: now() }),
    nextDueAt: ({ now, ...waits }) => nextDueAt(q, now, waits),
    markUploaded: (kind, id, remoteId, sentBytes) => void markUploaded(q, kind, id, remoteId, { now: now(), sentBytes }),
    retryLater: (kind, id, args) => void markRetry(q, kind, id, { ...args, now: now() }),
    outcomeUnknown: (kind, id, args) => void markUnknown(q, kind, id, { ...args, now: now() }),
    fail: (kind, id, args) => void markFailed(q, kind, id, { ...args, now: now() }),
    isRemoteIdTaken: (kind, remoteId) => isRemoteIdTaken(q, kind, remoteId),
  };
}
