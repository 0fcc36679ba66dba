/**
 * The queue's objects as the rest of the agent sees them (camelCase). The mapping
 * from SQLite rows is in rows.ts, and only there.
 */

export type ItemKind = 'recording' | 'detection';

export const ITEM_STATES = ['pending', 'sending', 'unknown', 'uploaded', 'failed', 'dropped'] as const;
export type ItemState = (typeof ITEM_STATES)[number];

export type AudioFormat = 'wav' | 'flac';

/** Where a recording's start time came from, most trusted first. */
export type TimeSource = 'sidecar' | 'filename' | 'metadata' | 'mtime';

/** A soundscape to queue, as ingest knows it. */
export interface NewRecording {
  /** Identity of the recording, chosen by the caller (e.g. `basename|startUtc`). Enqueueing it again adds nothing. */
  sourceKey: string;
  /** The analyzer's audio file. */
  sourcePath: string;
  /** The audio in the agent's spool, or null when there is no audio (yet). */
  spoolPath: string | null;
  /** Format of the spool file: 'wav' still needs encoding, 'flac' can be uploaded. */
  audioFormat: AudioFormat | null;
  /** Start of the recording, ISO 8601 with the station's offset and milliseconds. */
  timestamp: string;
  timeSource: TimeSource;
  durationS: number | null;
  sampleRate: number | null;
  /** Size of the spool file in bytes. */
  filesize: number | null;
  /**
   * The spool WAV's modification time in whole ms as it was queued, checked with `filesize`
   * before it is encoded (migration 16); null or absent: not checked.
   */
  audioMtimeMs?: number | null;
  /** Queue the item on hold (e.g. 'clock' when the station clock is not trusted). */
  holdReason?: string | null;
}

/** A detection to queue. */
export interface NewDetection {
  /** Identity of the detection, chosen by the caller (e.g. `sourceKey|start|scientificName`). */
  dedupeKey: string;
  /** Start of the detection, ISO 8601 with offset. */
  timestamp: string;
  /** Offsets within the recording, in seconds. */
  startS: number;
  endS: number;
  scientificName: string;
  commonName: string;
  confidence: number;
  lat: number | null;
  lon: number | null;
  holdReason?: string | null;
}

/** What every queued item carries, whatever its kind. */
export interface ItemBase {
  id: number;
  state: ItemState;
  /** The state before the last transition (null until the first one). */
  previousState: ItemState | null;
  /** Sends that did not end in `uploaded` (retries, unknown outcomes, failures). */
  attempts: number;
  /** Epoch ms; the item is not claimed before. */
  nextAttemptAt: number;
  /** The most recent failure; kept after a later success, for diagnosis. */
  lastError: string | null;
  lastErrorCode: string | null;
  /** The service's id once uploaded (ids exceed 2^31; safe as JS numbers below 2^53). */
  remoteId: number | null;
  /** Why the item is held back (e.g. 'clock'); held items are never claimed. */
  holdReason: string | null;
  /** True when this claim came from `unknown`: look the item up at the service before posting. */
  reconcile: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface RecordingItem extends ItemBase, Omit<NewRecording, 'holdReason'> {
  kind: 'recording';
}

export interface DetectionItem extends ItemBase, Omit<NewDetection, 'holdReason'> {
  kind: 'detection';
  /** The recording the detection was found in, or null for a detection without recording. */
  recordingId: number | null;
  /**
   * What the detection waits for before it may be claimed: `nothing` (no recording, or
   * the recording is uploaded, failed or dropped), the recording's `upload`, or its
   * `audio` (a recording without audio: the detection goes without a soundscape
   * after `noAudioAfterMs`).
   */
  recordingWait: RecordingWait;
}

export type RecordingWait = 'nothing' | 'upload' | 'audio';

/** A claimed detection, with what posting it needs from its recording. */
export interface ClaimedDetection extends DetectionItem {
  /** The soundscape's service id when the recording is uploaded, otherwise null (post without soundscape). */
  soundscapeRemoteId: number | null;
  /** The recording's start, ISO 8601 with offset, or null without recording. */
  recordingTimestamp: string | null;
}

export type QueueItem = RecordingItem | DetectionItem;

/** The item type of a kind. */
export type ItemOf<K extends ItemKind> = K extends 'recording' ? RecordingItem : DetectionItem;

/** A reference to one item, as operators and the CLI name it. */
export interface ItemRef {
  kind: ItemKind;
  id: number;
}

export type StateCounts = Record<ItemState, number>;

export interface QueueCounts {
  recordings: StateCounts;
  detections: StateCounts;
  /**
   * Epoch ms when the oldest item still waiting (pending, sending or unknown) was queued: of each
   * kind, the first waiting item in queue order (a retried item at its old place), the earlier
   * of the two; null when none waits.
   */
  oldestPendingAt: number | null;
}
