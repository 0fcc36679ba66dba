import type {
  AudioFormat,
  DetectionItem,
  ItemBase,
  ItemKind,
  ItemOf,
  ItemState,
  NewDetection,
  NewRecording,
  QueueItem,
  RecordingItem,
  RecordingWait,
  TimeSource,
} from './types.js';

/**
 * Row <-> object mapping, in one place. SQLite columns are snake_case; the agent
 * sees camelCase objects. Column names the queue's SQL builds on also live here.
 */

export const TABLE: Record<ItemKind, 'recordings' | 'detections'> = {
  recording: 'recordings',
  detection: 'detections',
};

interface ItemRowBase {
  id: number;
  state: ItemState;
  prev_state: ItemState | null;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  last_error_code: string | null;
  remote_id: number | null;
  hold_reason: string | null;
  reconcile: number;
  created_at: number;
  updated_at: number;
}

export interface RecordingRow extends ItemRowBase {
  source_key: string;
  source_path: string;
  spool_path: string | null;
  audio_format: AudioFormat | null;
  timestamp: string;
  time_source: TimeSource;
  duration_s: number | null;
  sample_rate: number | null;
  filesize: number | null;
  audio_mtime_ms: number | null;
  /** Generated columns (see the schema), not mapped. */
  audio_stage: number;
  detection_wait: number;
}

export interface DetectionRow extends ItemRowBase {
  recording_id: number | null;
  dedupe_key: string;
  timestamp: string;
  start_s: number;
  end_s: number;
  scientific_name: string;
  common_name: string;
  confidence: number;
  lat: number | null;
  lon: number | null;
  recording_wait: 0 | 1 | 2;
}

const RECORDING_WAIT: Record<DetectionRow['recording_wait'], RecordingWait> = { 0: 'nothing', 1: 'upload', 2: 'audio' };

export type ItemRow = RecordingRow | DetectionRow;

export function toRecording(row: RecordingRow): RecordingItem {
  return {
    kind: 'recording',
    id: row.id,
    sourceKey: row.source_key,
    sourcePath: row.source_path,
    spoolPath: row.spool_path,
    audioFormat: row.audio_format,
    timestamp: row.timestamp,
    timeSource: row.time_source,
    durationS: row.duration_s,
    sampleRate: row.sample_rate,
    filesize: row.filesize,
    audioMtimeMs: row.audio_mtime_ms,
    ...base(row),
  };
}

function toDetection(row: DetectionRow): DetectionItem {
  return {
    kind: 'detection',
    id: row.id,
    recordingId: row.recording_id,
    dedupeKey: row.dedupe_key,
    timestamp: row.timestamp,
    startS: row.start_s,
    endS: row.end_s,
    scientificName: row.scientific_name,
    commonName: row.common_name,
    confidence: row.confidence,
    lat: row.lat,
    lon: row.lon,
    recordingWait: RECORDING_WAIT[row.recording_wait],
    ...base(row),
  };
}

export function toItem<K extends ItemKind>(kind: K, row: ItemRow): ItemOf<K>;
export function toItem(kind: ItemKind, row: ItemRow): QueueItem {
  return kind === 'recording' ? toRecording(row as RecordingRow) : toDetection(row as DetectionRow);
}

function base(row: ItemRowBase): Omit<ItemBase, 'id'> {
  return {
    state: row.state,
    previousState: row.prev_state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    lastErrorCode: row.last_error_code,
    remoteId: row.remote_id,
    holdReason: row.hold_reason,
    reconcile: row.reconcile === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Named parameters of the recordings INSERT (enqueue.ts). */
export function newRecordingParams(r: NewRecording, now: number): Record<string, unknown> {
  return {
    source_key: r.sourceKey,
    source_path: r.sourcePath,
    spool_path: r.spoolPath,
    audio_format: r.audioFormat,
    timestamp: r.timestamp,
    time_source: r.timeSource,
    duration_s: r.durationS,
    sample_rate: r.sampleRate,
    filesize: r.filesize,
    audio_mtime_ms: r.audioMtimeMs ?? null,
    hold_reason: r.holdReason ?? null,
    now,
  };
}

/** Named parameters of the detections INSERT (enqueue.ts). */
export function newDetectionParams(d: NewDetection, recordingId: number | null, now: number): Record<string, unknown> {
  return {
    recording_id: recordingId,
    dedupe_key: d.dedupeKey,
    timestamp: d.timestamp,
    start_s: d.startS,
    end_s: d.endS,
    scientific_name: d.scientificName,
    common_name: d.commonName,
    confidence: d.confidence,
    lat: d.lat,
    lon: d.lon,
    hold_reason: d.holdReason ?? null,
    now,
  };
}
