/**
 * The audio side of ingesting one recording: is the analyzer's audio complete and valid,
 * and taking it into the spool under a name derived from the recording's identity (so a
 * crash between the move and the queue row leaves it where the next try finds it).
 *
 * The audio is opened once (`openAudio`): its header, its modification time, its content
 * key and the spool's link or copy all come from that one descriptor.
 */
import { createHash } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { AudioFileError, STILL_BEING_WRITTEN } from '../audio/errors.js';
import { readFlacInfoFrom } from '../audio/flac-info.js';
import { readWavInfoFrom, type WavInfo } from '../audio/wav.js';
import { errorMessage } from '../errors.js';
import { isDiskLow } from '../system/disk.js';
import { NotRegularFileError, openRegularFileStat, type ReadableFile } from '../system/regular-file.js';
import { contentKey } from './content-key.js';
import type { IngestContext } from './context.js';

/** Audio that can be taken: open until `close()`. */
export interface ValidAudio {
  kind: 'wav' | 'flac';
  path: string;
  durationSec: number;
  sampleRate: number;
  bytes: number;
  mtime: Date;
  /** WAV metadata a recording's start may come from. */
  metadata?: { comment?: string | undefined; guano?: Record<string, string> | undefined };
  /** What was recovered from a WAV whose header was never finalised (said in the log), when it was. */
  recovered?: string;
  handle: ReadableFile;
  /** The audio's size and first 64 KiB, hashed (see content-key.ts). */
  contentKey(): Promise<string>;
  close(): Promise<void>;
}

export type AudioInspection =
  | ValidAudio
  | { kind: 'not-ready'; reason: string }
  | { kind: 'invalid'; message: string }
  | { kind: 'missing'; message: string };

export interface OpenAudioOptions {
  /**
   * Take a WAV whose data size was never filled in (0, 0xFFFFFFFF, or more than the file
   * holds) as it is: its whole frames, as sox and libsndfile read it. Otherwise such a WAV
   * is `not-ready` (a recorder still writing it).
   */
  asItIs: boolean | ((mtime: Date) => boolean);
}

export async function openAudio(file: string, options: OpenAudioOptions): Promise<AudioInspection> {
  let handle: ReadableFile | undefined;
  try {
    const opened = await openRegularFileStat(file);
    handle = opened.handle;
    const { size, mtime } = opened.stats;
    const fh = opened.handle;
    const common = { path: file, bytes: size, mtime, handle: fh, contentKey: () => contentKey(fh, size), close: () => fh.close() };
    if (/\.flac$/i.test(file)) {
      const info = await readFlacInfoFrom(fh, file, size);
      handle = undefined;
      return { kind: 'flac', durationSec: info.durationSec, sampleRate: info.sampleRate, ...common };
    }
    const info = await readWavInfoFrom(fh, file, size);
    const asItIs = typeof options.asItIs === 'function' ? options.asItIs(mtime) : options.asItIs;
    if (!info.complete && (!asItIs || info.dataBytes === 0)) return { kind: 'not-ready', reason: `${file}: still being written` };
    handle = undefined;
    return {
      kind: 'wav',
      durationSec: info.durationSec,
      sampleRate: info.sampleRate,
      metadata: { comment: info.comment, guano: info.guano },
      ...(!info.complete && { recovered: describeRecovery(file, info) }),
      ...common,
    };
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
  } finally {
    await handle?.close();
  }
}

/** What a lenient reader made of a WAV whose data size was never finalised, in words for the log. */
function describeRecovery(file: string, info: WavInfo): string {
  const declared =
    info.declaredDataBytes === 0
      ? 'a data size of 0'
      : info.declaredDataBytes === 0xffffffff
        ? 'a data size of 0xFFFFFFFF'
        : info.declaredDataBytes > info.fileBytes - info.dataOffset
          ? `a data size of ${info.declaredDataBytes} bytes, more than the ${info.fileBytes - info.dataOffset} the file holds`
          : 'a RIFF size of 0';
  return (
    `${file}: the WAV header was never finalised (${declared}); took the ${info.dataBytes} bytes of whole frames the file holds ` +
    `(${info.durationSec.toFixed(2)} s), as sox and libsndfile read it`
  );
}

function spoolName(sourceKey: string, kind: 'wav' | 'flac'): string {
  return `${createHash('sha1').update(sourceKey).digest('hex').slice(0, 16)}.${kind}`;
}

/**
 * Audio a crash left in the spool under the recording's spool name (moved there, its row
 * never committed). Open: the caller closes it.
 */
export async function leftInSpool(ctx: IngestContext, sourceKey: string): Promise<(ValidAudio & { path: string }) | null> {
  for (const kind of ['wav', 'flac'] as const) {
    const name = spoolName(sourceKey, kind);
    for (const file of ctx.spool.nearDir ? [ctx.spool.pathFor(name), path.join(ctx.spool.nearDir, name)] : [ctx.spool.pathFor(name)]) {
      const audio = await openAudio(file, { asItIs: true });
      if (audio.kind === 'wav' || audio.kind === 'flac') return audio;
    }
  }
  return null;
}

/**
 * Takes the recording's audio into the spool: renamed from incoming/ when it was linked
 * there on sight (within the near spool when it is there: `input.ramDiskAudio: keep`),
 * else linked (or, with `mayRefer`, held by reference: Spool.take) or copied from the
 * descriptor it was read through. Null when free disk
 * space on the card is below `disk.minFreeMb` (audio from the card's incoming/ is then
 * deleted); audio in the near spool takes no space on the card.
 */
export async function spoolAudio(ctx: IngestContext, audio: ValidAudio, alreadySpooled: boolean, sourceKey: string, mayRefer = false): Promise<string | null> {
  const name = spoolName(sourceKey, audio.kind);
  if (alreadySpooled && ctx.spool.isNear(audio.path)) {
    const dest = ctx.spool.pathFor(name, audio.path);
    await rename(audio.path, dest);
    return dest;
  }
  let free = Number.POSITIVE_INFINITY;
  try {
    free = ctx.spool.freeBytes();
  } catch {
    // Not measurable: taken as room, as the disk monitor decides the low state too.
  }
  if (isDiskLow(free, ctx.minFreeMb)) {
    if (alreadySpooled) await rm(audio.path, { force: true });
    return null;
  }
  if (alreadySpooled) {
    const dest = ctx.spool.pathFor(name);
    await rename(audio.path, dest);
    return dest;
  }
  return (await ctx.spool.take(audio.path, name, audio.handle, { mayRefer })).path;
}
