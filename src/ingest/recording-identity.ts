/**
 * What a recording is known by in the queue: its start (`resolveRecordingStart`, the one
 * place that decides it) and its source key, which every dedupe key of its detections
 * starts with.
 *
 * - A name that carries the date and time (`<base>_YYYYMMDD_HHMMSS.wav`, the analyzerpi's
 *   `2026-05-01-birdnet-06:00:00.wav`) identifies the recording: `<base name>|<start>`.
 * - Where no name carries it (an undated `soundscape.wav`, its `*.BirdNET.results.csv`), the
 *   name is no identity: a renamed or copied file would be a new recording. The content is:
 *   `audio:<content key>` of the audio when there is audio, else `result:<content key>` of the
 *   result file (a sidecar carrying its own start), then `|<start>` (two silent recordings may
 *   share their bytes, never their start), except for a start from the modification time,
 *   which changes with every copy. A renamed copy queues nothing new.
 */
import path from 'node:path';
import type { IngestContext } from './context.js';
import type { ResultClass } from './formats.js';
import type { ValidAudio } from './recording-audio.js';
import { recordingStartFromName, resolveRecordingStart, type RecordingStart } from './recording-time.js';
import type { OpenResult } from './result-stream.js';
import { IMPLAUSIBLE_TIME_HOLD } from './time-holds.js';

export interface RecordingIdentity {
  start: RecordingStart;
  sourceKey: string;
  /** `implausible-time` when the start is implausible (the items are queued held), else null. */
  holdReason: string | null;
  /** Why the items are held, for the operator. */
  problem?: string;
}

export interface IdentityInput {
  resultPath: string;
  what: ResultClass;
  /** The analyzer's audio file's path, when known (whether or not it could be read). */
  audioPath: string | undefined;
  /** The audio as read (header, metadata, modification time), when it could be. */
  audio: ValidAudio | null;
  opened: OpenResult;
  now: Date;
}

/** Undefined when nothing gives the recording's start (the caller refuses the file). */
export async function identifyRecording(ctx: IngestContext, input: IdentityInput): Promise<RecordingIdentity | undefined> {
  const { opened, audio } = input;
  // The audio's name, the name the result gives it, then the result's own base name (pairing is by base name).
  const names = [input.audioPath, opened.audioFileName, `${input.what.baseName}.wav`].filter((n): n is string => Boolean(n));
  const start = resolveRecordingStart({
    zone: ctx.zone,
    fileName: names,
    sidecarStart: opened.recordingStart,
    metadata: audio?.metadata,
    mtime: audio?.mtime,
    durationSec: audio?.durationSec,
    now: input.now,
  });
  if (!start) return undefined;
  const named = start.source === 'filename' || names.some((n) => recordingStartFromName(n, ctx.zone) !== undefined);
  const baseName = path.basename(input.audioPath ?? opened.audioFileName ?? input.what.baseName);
  // A start from the modification time changes with every copy: the content alone is the identity.
  // The content is read and hashed (64 KiB) only where the name gives no identity.
  let sourceKey = `${baseName}|${start.start.toISOString()}`;
  if (!named) {
    const content = audio ? `audio:${await audio.contentKey()}` : `result:${await opened.contentKey()}`;
    sourceKey = start.source === 'mtime' ? content : `${content}|${start.start.toISOString()}`;
  }
  if (!start.implausible) return { start, sourceKey, holdReason: null };
  return {
    start,
    sourceKey,
    holdReason: IMPLAUSIBLE_TIME_HOLD,
    problem: `${input.audioPath ?? input.resultPath}: ${start.implausibleReason} (from ${start.source}); held until the clock makes it plausible, or an operator releases it (queue release)`,
  };
}
