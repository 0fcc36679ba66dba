import type { PostDetectionBody } from '../wire/types.js';
import type { UploadApi } from './ports.js';
import { findDetection, findSoundscape, type SpeciesIdCache } from './reconcile.js';
import type { UploadQueue } from './upload-queue.js';
import type { ClaimedDetection, RecordingItem } from '../queue/index.js';
import { AudioFileError } from '../audio/errors.js';
import type { LinkGate } from './link-policy.js';

export interface SendContext {
  api: UploadApi;
  /** Whether an item already holds (or is about to be recorded with) this service id. */
  isRemoteIdTaken: UploadQueue['isRemoteIdTaken'];
  species: SpeciesIdCache;
  signal: AbortSignal;
  /** The link policy: paces and counts soundscape bodies (absent: sent at full speed). */
  link?: LinkGate;
}

export interface SendResult {
  remoteId: number;
  reconciled: boolean;
  bytes?: number;
}

/**
 * Uploads one soundscape, or finds the one the service already has, and returns its
 * service id. The caller records it (`markUploaded`, in its group commit): the id is
 * stored in the same UPDATE that marks the recording uploaded, which is what makes its
 * detections due.
 */
export async function sendRecording(ctx: SendContext, item: RecordingItem): Promise<SendResult> {
  if (item.reconcile) {
    const found = await findSoundscape(
      ctx.api,
      { timestamp: item.timestamp, durationS: item.durationS, filesize: item.filesize },
      (id) => ctx.isRemoteIdTaken('recording', id),
      ctx.signal,
    );
    if (found != null) {
      return { remoteId: found, reconciled: true };
    }
  }
  if (!item.spoolPath) throw new AudioFileError(`recording ${item.id}`, 'no-data', 'no audio in the spool');
  let soundscape;
  try {
    soundscape = await ctx.api.uploadSoundscape({ timestamp: item.timestamp, file: item.spoolPath, signal: ctx.signal, through: ctx.link?.audioBody() });
  } finally {
    ctx.link?.audioDone();
  }
  return { remoteId: soundscape.id, reconciled: false, bytes: soundscape.filesize ?? undefined };
}

/** Posts one detection, or finds the one the service already has; returns its service id (the caller records it). */
export async function sendDetection(ctx: SendContext, item: ClaimedDetection): Promise<SendResult> {
  if (item.reconcile) {
    const found = await findDetection(
      ctx.api,
      item,
      ctx.species,
      (id) => ctx.isRemoteIdTaken('detection', id),
      ctx.signal,
    );
    if (found != null) {
      return { remoteId: found, reconciled: true };
    }
  }
  const detection = await ctx.api.postDetection(detectionBody(item), ctx.signal);
  return { remoteId: detection.id, reconciled: false };
}

export function detectionBody(item: ClaimedDetection): PostDetectionBody {
  const body: PostDetectionBody = {
    timestamp: item.timestamp,
    commonName: item.commonName,
    scientificName: item.scientificName,
    confidence: item.confidence,
  };
  if (item.lat != null) body.lat = item.lat;
  if (item.lon != null) body.lon = item.lon;
  if (item.soundscapeRemoteId != null) {
    body.soundscapeId = item.soundscapeRemoteId;
    body.soundscapeStartTime = item.startS;
    body.soundscapeEndTime = item.endS;
  }
  return body;
}
