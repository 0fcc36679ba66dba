/**
 * The durable queue: SQLite (WAL, synchronous=FULL), the item state machine, and
 * one function per queue operation. See docs/ARCHITECTURE.md for the state table.
 */
export { openQueue, Queue, type IntegrityReport, type OpenQueueOptions } from './db.js';
export { QueueDatabaseError, QueueError, QueueTransitionError, type QueueErrorCode } from './errors.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate, type Migration } from './migrations.js';
export { TRANSITIONS, allowedFrom, transition, transitionWhere, type Transition, type TransitionPatch } from './state.js';
export * from './types.js';
export { formatItemId, formatItemRef, parseItemId } from './item-id.js';
export { enqueueMany, enqueueRecording, type ChangedDetection, type EnqueueInput, type EnqueueOptions, type EnqueueResult } from './enqueue.js';
export { CLAIM_FROM, type ClaimOptions, type ClaimOrder } from './claim.js';
export { claimEncoded, claimRecordings } from './claim-recordings.js';
export { DEFAULT_NO_AUDIO_AFTER_MS, claimDetections, type ClaimDetectionsOptions } from './claim-detections.js';
export { compactionCandidates, newestRecordingId, wavRecordingsDue, type CompactionOptions, type WavDueOptions, type WavRecording } from './encoding.js';
export { replaceWithFlac, type FlacInSpool } from './replace-audio.js';
export { markUploaded } from './mark-uploaded.js';
export { markRetry, type RetryOutcome } from './mark-retry.js';
export { markUnknown, type UnknownOutcome } from './mark-unknown.js';
export { markFailed, markUnencodable, type FailedOutcome } from './mark-failed.js';
export { hold, releaseHolds } from './hold.js';
export { holdCounts, sourceHoldReasons } from './hold-counts.js';
export { reviewHolds, type HeldItem } from './review-holds.js';
export { releaseHeld, type HeldSelection, type ReleaseResult } from './release-held.js';
export { INTERRUPTED_CODE, recoverInFlight, type RecoveredCounts } from './recover.js';
export { queueCounts } from './counts.js';
export { getItem, getItems } from './get-item.js';
export { listItems, type ListOptions, type ListPage } from './list-items.js';
export { retryItems, type OperatorSelection, type RefusedItem, type RetryResult } from './retry-items.js';
export { dropItems, type DropResult, type DroppedItem } from './drop-items.js';
export { clearSpoolPath, spoolFilesToDelete, spoolUsage, type RetentionOptions, type SpoolFile, type SpoolUsage } from './retention.js';
export { isRemoteIdTaken } from './remote-ids.js';
export {
  deliveredDetections,
  deliveredRecordings,
  deliveredSpeciesCounts,
  requeueMissing,
  waitingInstants,
  type DeliveredDetection,
  type DeliveredRecording,
  type RequeueOutcome,
} from './delivered.js';
export { getMeta, metaLastWrittenAt, setMeta, type MetaKey, type MetaValues, type MqttPresence, type PolicyCounts, type StoredRuntime, type TodayTally, type LastAudit } from './meta.js';
export { countTable, recountStates } from './state-counts.js';
export { nextDueAt } from './next-due.js';
export { findRecordingBySourceKey } from './find-recording.js';
export { filesInError, forgetIngestedFiles, ingestedFilesBefore, isFileDone, markFileDone, type FileInError, type FileOutcome } from './ingested-files.js';
export { MQTT_STATE, type MqttState } from './mqtt-state.js';
export { detectionsToPublish, updatesToPublish, type OutboxDetection, type OutboxUpdate } from './mqtt-to-publish.js';
export { markDetectionsPublished, markUpdatesPublished } from './mqtt-mark-published.js';
export { outboxCounts, type OutboxCounts } from './mqtt-outbox-counts.js';
export { skipUnpublished } from './mqtt-skip-unpublished.js';
export { withholdQueuedAudio, withholdRecordingAudio, type WithheldRecording } from './withhold-audio.js';
