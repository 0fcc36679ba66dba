/**
 * Privacy at ingest: whether a recording's soundscape must not be kept, decided over every
 * row the analyzer wrote (before any threshold, before any audio is taken: a person heard in
 * the last row of a long table still withholds it), and what that means for audio already
 * taken, or a recording already queued from an earlier read of the same file.
 */
import { rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import { withholdRecordingAudio, type RecordingItem } from '../queue/index.js';
import type { Withheld } from '../policy/recording-policy.js';
import type { IngestContext } from './context.js';
import type { OpenResult } from './result-stream.js';

/**
 * Whether the recording's audio must not be spooled or uploaded: `privacy.audio: never`, or
 * a person heard in any row of the file. The rows of `opened.first` are all of a file of up
 * to one batch; only a longer table is read a second time.
 */
export async function privacyVerdict(ctx: IngestContext, opened: OpenResult): Promise<Withheld | null> {
  if (!ctx.policy.keepsAudio) return { reason: 'audio-never' };
  let found = ctx.policy.decide(opened.first.detections).withheld;
  if (opened.first.last) return found;
  for await (const batch of opened.reread()) {
    const w = ctx.policy.decide(batch.detections).withheld;
    if (w?.reason === 'human' && (found?.reason !== 'human' || w.confidence > found.confidence)) found = w;
  }
  return found;
}

/** What became of the audio of a withheld recording, for the one log line that says so. */
export type AudioFate =
  /** Nothing of it was taken. */
  | 'not-taken'
  /** Linked into the spool on sight (analyzerpi), deleted now. */
  | 'deleted'
  /** Queued from an earlier read: dropped, its spooled audio deleted. */
  | 'dropped'
  /** Queued from an earlier read and being sent right now: it may reach the service; held from any later try. */
  | 'in-flight'
  /** Queued from an earlier read and uploaded before the person was heard. */
  | 'uploaded';

/**
 * A recording queued from an earlier read of this file, withheld now (the table was
 * rewritten with a person in it): dropped unless a request with it is under way or done,
 * and its audio deleted from the spool.
 */
export async function withholdQueued(ctx: IngestContext, existing: RecordingItem, w: Withheld & { reason: 'human' }, resultPath: string): Promise<AudioFate> {
  const why = `${resultPath} line ${w.line}: ${w.className} at ${w.confidence}`;
  const result = withholdRecordingAudio(ctx.queue, existing.id, why);
  if (result.outcome === 'dropped') {
    if (result.spoolPath) {
      await rm(result.spoolPath, { force: true });
      // An encoded recording's WAV may still lie beside its FLAC.
      if (result.spoolPath.endsWith('.flac')) await rm(`${result.spoolPath.slice(0, -'.flac'.length)}.wav`, { force: true });
    }
    return 'dropped';
  }
  if (result.outcome === 'held') return 'in-flight';
  if (result.outcome === 'uploaded') return 'uploaded';
  return 'not-taken';
}

const FATE: Record<AudioFate, string> = {
  'not-taken': 'the soundscape is not uploaded',
  deleted: 'the soundscape is not uploaded and its spooled audio was deleted',
  dropped: 'the soundscape, queued from an earlier read of the file, is dropped (never uploaded) and its spooled audio was deleted',
  'in-flight':
    'the soundscape, queued from an earlier read of the file, is being sent right now and may reach the service; it is held from any later try',
  uploaded: 'the soundscape was uploaded from an earlier read of the file, before the person was heard; it stays at the service (delete it there)',
};

/** The log line of a withheld soundscape: the file, the class and its confidence, what became of the audio; never any audio. */
export function logWithheld(log: Logger, resultPath: string, w: Withheld, fate: AudioFate): void {
  if (w.reason !== 'human') return;
  const line = `privacy: ${resultPath} line ${w.line}: ${w.className} at ${w.confidence}; ${FATE[fate]}, its other detections go without it`;
  const fields = { file: resultPath, class: w.className, confidence: w.confidence, line: w.line, policy: 'privacy', audio: fate };
  if (fate === 'in-flight' || fate === 'uploaded') log.error(fields, line);
  else log.warn(fields, line);
}
