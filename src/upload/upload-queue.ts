import type { ItemKind } from './decide.js';
import type { ClaimedDetection, ClaimedRecording } from './send.js';

/**
 * The queue operations the uploader uses, named by what they mean to it. The
 * implementation binds them to the queue's transition functions (`bindUploadQueue`
 * in `upload-queue-sqlite.ts`); every state change still goes through the queue's
 * single `transition()`.
 */
export interface UploadQueue {
  claimRecordings(args: { now: number; limit: number; order: 'newest' | 'oldest' }): ClaimedRecording[];
  claimDetections(args: { now: number; limit: number; order: 'newest' | 'oldest'; noAudioAfterMs: number }): ClaimedDetection[];
  /** The earliest `next_attempt_at` of a waiting item, to sleep until then. */
  nextDueAt(): number | null;
  /** Gives a claimed item back without counting an attempt. */
  unclaim(kind: ItemKind, id: number, reconcile: boolean): void;
  markUploaded(kind: ItemKind, id: number, remoteId: number): void;
  /** Back to waiting; an item that was being reconciled stays `unknown`. */
  retryLater(
    kind: ItemKind,
    id: number,
    reconcile: boolean,
    args: { error: string; code: string; nextAttemptAt: number; countAttempt?: boolean },
  ): void;
  outcomeUnknown(kind: ItemKind, id: number, args: { error: string; code: string; nextAttemptAt: number }): void;
  fail(kind: ItemKind, id: number, args: { error: string; code: string }): void;
  /** True when another queue item already holds this service id (never adopt one twice). */
  isRemoteIdTaken(kind: ItemKind, remoteId: number, exceptId: number): boolean;
}
