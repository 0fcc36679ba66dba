/**
 * The audio side of ingesting one recording: is the analyzer's audio complete and valid,
 * and taking it into the spool under a name derived from the recording's identity (so a
 * crash between the move and the queue row leaves it where the next try finds it).
 */
import { createHash } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { AudioFileError, STILL_BEING_WRITTEN } from '../audio/errors.js';
import { readFlacInfo } from '../audio/flac-info.js';
import { readWavInfo, type WavInfo } from '../audio/wav.js';
import { errorMessage } from '../errors.js';
import { isDiskLow } from '../system/disk.js';
import { NotRegularFileError, openRegularFile } from '../system/regular-file.js';
import type { IngestContext } from './ingest-recording.js';

export type ValidAudio = Extract<AudioInspection, { kind: 'wav' | 'flac' }>;

export type AudioInspection =
  | { kind: 'wav'; durationSec: number; sampleRate: number; bytes: number; info: WavInfo }
  | { kind: 'flac'; durationSec: number; sampleRate: number; bytes: number }
  | { kind: 'not-ready'; reason: string }
  | { kind: 'invalid'; message: string }
  | { kind: 'missing'; message: string };

export async function inspectAudio(file: string): Promise<AudioInspection> {
  try {
    if (/\.flac$/i.test(file)) {
      const info = await readFlacInfo(file);
      return { kind: 'flac', durationSec: info.durationSec, sampleRate: info.sampleRate, bytes: info.bytes };
    }
    const info = await readWavInfo(file);
    if (!info.complete) return { kind: 'not-ready', reason: `${file}: still being written` };
    return { kind: 'wav', durationSec: info.durationSec, sampleRate: info.sampleRate, bytes: info.fileBytes, info };
  } catch (err) {
    if (err instanceof AudioFileError) {
      // A WAV that looks unfinished may still be growing; the caller decides how long to wait.
      if (STILL_BEING_WRITTEN.has(err.reason) && err.reason !== 'empty') return { kind: 'not-ready', reason: err.message };
      return { kind: 'invalid', message: `${err.message}; detections go without a soundscape` };
    }
    if (err instanceof NotRegularFileError) return { kind: 'invalid', message: `${err.message}; detections go without a soundscape` };
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing', message: `${file}: audio deleted before it could be spooled; detections go without a soundscape` };
    return { kind: 'invalid', message: `${file}: ${errorMessage(err)}` };
  }
}

/** First 64 KiB and size of a file, hashed: identifies a recording whatever its copy's times. */
export async function contentKey(file: string): Promise<string> {
  const fh = await openRegularFile(file);
  try {
    const { size } = await fh.stat();
    const buf = Buffer.alloc(Math.min(size, 64 * 1024));
    await fh.read(buf, 0, buf.length, 0);
    return `${size}:${createHash('sha1').update(buf).digest('hex').slice(0, 16)}`;
  } finally {
    await fh.close();
  }
}

function spoolName(sourceKey: string, kind: 'wav' | 'flac'): string {
  return `${createHash('sha1').update(sourceKey).digest('hex').slice(0, 16)}.${kind}`;
}

export async function leftInSpool(ctx: IngestContext, sourceKey: string): Promise<{ path: string; audio: ValidAudio } | null> {
  for (const kind of ['wav', 'flac'] as const) {
    const file = ctx.spool.pathFor(spoolName(sourceKey, kind));
    const audio = await inspectAudio(file);
    if (audio.kind === 'wav' || audio.kind === 'flac') return { path: file, audio };
  }
  return null;
}

export async function spoolAudio(
  ctx: IngestContext,
  audioPath: string,
  alreadySpooled: boolean,
  sourceKey: string,
  kind: 'wav' | 'flac',
): Promise<string | null> {
  const free = await ctx.spool.freeBytes().catch(() => Number.POSITIVE_INFINITY);
  if (isDiskLow(free, ctx.minFreeMb)) {
    if (alreadySpooled) await rm(audioPath, { force: true });
    return null;
  }
  const dest = ctx.spool.pathFor(spoolName(sourceKey, kind));
  if (alreadySpooled) {
    await rename(audioPath, dest);
  } else {
    await ctx.spool.take(audioPath, dest);
  }
  return dest;
}
