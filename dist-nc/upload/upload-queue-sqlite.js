import { claimDetections, claimEncoded, claimRecordings, isRemoteIdTaken, markFailed, markRetry, markUnencodable, markUnknown, markUploaded, wavRecordingsDue, } from '../queue/index.js';
import { nextDueAt } from '../queue/next-due.js';
import { OuterTransaction } from '../queue/transaction.js';
export function bindUploadQueue(q, now = Date.now) {
    const inSavepoint = q.db.transaction((write) => write());
    return {
        commit: (fn, options) => OuterTransaction.run(q, 'a group commit', fn, options),
        savepoint: (fn) => inSavepoint.immediate(fn),
        claimRecordings: (args) => claimRecordings(q, args),
        claimDetections: (args) => claimDetections(q, args),
        wavRecordingsDue: (args) => wavRecordingsDue(q, args),
        claimEncoded: (args) => claimEncoded(q, args),
        failUnencodable: (id, spoolPath, args) => markUnencodable(q, id, spoolPath, { ...args, now: now() }),
        nextDueAt: ({ now, ...waits }) => nextDueAt(q, now, waits),
        markUploaded: (kind, id, remoteId) => void markUploaded(q, kind, id, remoteId, { now: now() }),
        retryLater: (kind, id, args) => void markRetry(q, kind, id, { ...args, now: now() }),
        outcomeUnknown: (kind, id, args) => void markUnknown(q, kind, id, { ...args, now: now() }),
        fail: (kind, id, args) => void markFailed(q, kind, id, { ...args, now: now() }),
        isRemoteIdTaken: (kind, remoteId) => isRemoteIdTaken(q, kind, remoteId),
    };
}
