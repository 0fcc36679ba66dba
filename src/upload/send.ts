import { Readable } from 'node:stream';
import type { PostDetectionBody } from '../wire/types.js';
import type { UploadApi } from './ports.js';
import { findDetection, findSoundscape, type SpeciesIdCache } from './reconcile.js';
import type { UploadQueue } from './upload-queue.js';
import type { ClaimedDetection, RecordingItem } from '../queue/index.js';
import { lstat } from 'node:fs/promises';
import { queuedAudioError, resolveSpoolAudio } from '../audio/audio-reference.js';
import { AudioFileError } from '../audio/errors.js';
import { NetworkError } from '../api/errors.js';
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
  /** A soundscape's FLAC as sent (or as it would have been, for one adopted), when known: the queue keeps it for the delivery audit. */
  sentBytes?: number;
}

/**
 * The soundscape's FLAC when the encode step made it in memory (a WAV in the spool), or
 * why that audio cannot be sent. Absent: the spool file is the FLAC.
 */
export interface SoundscapeBody {
  flac?: Buffer;
  fault?: Error;
  /** Called once the send is over, however it ended: the memory it held is free. */
  release?: () => void;
}

/** Pieces of a FLAC held in memory as the request body reads them when the bandwidth cap paces them. */
const BODY_PIECE = 64 * 1024;

/**
 * Uploads one soundscape, or finds the one the service already has, and returns its
 * service id. The caller records it (`markUploaded`, in its group commit): the id is
 * stored in the same UPDATE that marks the recording uploaded, which is what makes its
 * detections due. The link policy (`through`) paces and counts the bytes actually sent,
 * from memory or from the spool alike.
 */
export async function sendRecording(ctx: SendContext, item: RecordingItem, body: SoundscapeBody = {}): Promise<SendResult> {
  // The size posted is the FLAC's: from memory, or the spool file's.
  const sentBytes = body.flac?.length ?? (item.audioFormat === 'flac' ? (item.filesize ?? undefined) : undefined);
  if (item.reconcile) {
    const found = await findSoundscape(
      ctx.api,
      { timestamp: item.timestamp, durationS: item.durationS, filesize: sentBytes ?? null },
      (id) => ctx.isRemoteIdTaken('recording', id),
      ctx.signal,
    );
    if (found != null) {
      return { remoteId: found, reconciled: true, sentBytes };
    }
  }
  if (body.fault) throw body.fault;
  if (!item.spoolPath) throw new AudioFileError(`recording ${item.id}`, 'no-data', 'no audio in the spool');
  const flac = body.flac;
  if (flac && !ctx.link?.pacesAudio) return sendFromMemory(ctx, item, flac);
  // The day's count of the link policy is written with this upload's outcome (the uploader's commit).
  // A FLAC spool file (as it was queued), or the analyzer's FLAC a spool reference names (its identity checked).
  const source = flac ? { body: Readable.from(pieces(flac, BODY_PIECE), { objectMode: false }), size: flac.length } : { file: await flacToSend(item, item.spoolPath) };
  const soundscape = await ctx.api.uploadSoundscape({ timestamp: item.timestamp, ...source, signal: ctx.signal, through: ctx.link?.audioBody() });
  return { remoteId: soundscape.id, reconciled: false, bytes: soundscape.filesize ?? undefined, sentBytes };
}

/**
 * The FLAC file to send for a recording: a spool reference's target, or the spool file itself,
 * refused when it is no longer as it was queued (an analyzer's FLAC hard-linked in results mode
 * and rewritten in place since: audio-reference.ts QueuedAudio). The compaction's own FLAC has
 * no queued time (replaceWithFlac clears it): nothing to check.
 */
async function flacToSend(item: RecordingItem, spoolPath: string): Promise<string> {
  const resolved = await resolveSpoolAudio(spoolPath);
  if (resolved.identity || item.audioMtimeMs == null || item.filesize == null) return resolved.path;
  const rewritten = queuedAudioError(spoolPath, await lstat(spoolPath).catch(() => null), { size: item.filesize, mtimeMs: item.audioMtimeMs, source: item.sourcePath });
  if (rewritten) throw rewritten;
  return spoolPath;
}

/**
 * A FLAC in memory with no bandwidth cap goes to the socket whole, as it is (no stream
 * pieces, no pacing Transform): its bytes count toward the day's budget once the request
 * has left, i.e. unless it failed before a byte was written (NetworkError).
 */
async function sendFromMemory(ctx: SendContext, item: RecordingItem, flac: Buffer): Promise<SendResult> {
  let soundscape;
  try {
    soundscape = await ctx.api.uploadSoundscape({ timestamp: item.timestamp, data: flac, signal: ctx.signal });
  } catch (err) {
    if (!(err instanceof NetworkError)) ctx.link?.audioSent(flac.length);
    throw err;
  }
  ctx.link?.audioSent(flac.length);
  return { remoteId: soundscape.id, reconciled: false, bytes: soundscape.filesize ?? undefined, sentBytes: flac.length };
}

function* pieces(data: Buffer, size: number): Generator<Buffer> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
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

function detectionBody(item: ClaimedDetection): PostDetectionBody {
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
