import type { ClaimedDetection, ItemKind, RecordingItem, WavDueOptions, WavRecording } from '../queue/index.js';
import type { DetectionWaitOptions } from '../queue/claim-detections.js';

/** What detections whose soundscape waits or will not come wait for: the same for a claim and for the next wake. */
type DetectionWaits = DetectionWaitOptions & { noAudioAfterMs: number };
import type { CommitQueue } from './group-commit.js';

/**
 * The queue operations the uploader uses, by the queue's own names (src/queue: one file
 * each), over the queue the daemon opened: the SQLite binding (`upload-queue-sqlite.ts`)
 * passes each to its operation with the time, and every state change still goes through
 * the queue's single `transition()`. The uploader runs its writes in group commits
 * (`group-commit.ts`), in the queue's own transactions. Tests put a fault between.
 */
export interface UploadQueue extends CommitQueue {
  claimRecordings(args: { now: number; limit: number; order: 'newest' | 'oldest' }): RecordingItem[];
  claimDetections(args: { now: number; limit: number; order: 'newest' | 'oldest' } & DetectionWaits): ClaimedDetection[];
  /** Due WAV recordings to encode into memory before their claim (a read). */
  wavRecordingsDue(args: WavDueOptions & { now: number }): WavRecording[];
  /** Claims recordings encoded into memory, by id and spool file; returns those claimed. */
  claimEncoded(args: { now: number; items: readonly { id: number; spoolPath: string }[] }): RecordingItem[];
  /** A `pending` recording whose audio cannot be encoded fails before any request; false when it moved on meanwhile. */
  markUnencodable(id: number, spoolPath: string, args: { error: string; code: string }): boolean;
  /** When the next item a claim with these waits could take becomes due (a backoff ends, a no-audio wait ends), to sleep until then. */
  nextDueAt(args: { now: number } & DetectionWaits): number | null;
  /** `sentBytes`: a recording's FLAC as sent, when known (the delivery audit's filesize). */
  markUploaded(kind: ItemKind, id: number, remoteId: number, sentBytes?: number): void;
  /** Back to waiting after a transient failure; an item being reconciled stays `unknown`. */
  markRetry(kind: ItemKind, id: number, args: { error: string; code: string; nextAttemptAt: number }): void;
  /** Sent, the answer lost: looked up at the service before any new post. */
  markUnknown(kind: ItemKind, id: number, args: { error: string; code: string; nextAttemptAt: number }): void;
  markFailed(kind: ItemKind, id: number, args: { error: string; code: string }): void;
  /** True when an item already holds this service id (never adopt one twice). */
  isRemoteIdTaken(kind: ItemKind, remoteId: number): boolean;
}
