/**
 * Taking a recording's audio into the spool, once its first row is kept: from where a crash
 * left it, from incoming/ (analyzerpi), or linked or copied from the analyzer's folder; and
 * giving it back when the queue refused the recording's first batch.
 */
import { lstat, rename, rm, stat } from 'node:fs/promises';
import { isAudioReference } from '../audio/audio-reference.js';
import { NotRegularFileError } from '../system/regular-file.js';
import type { RecordingItem } from '../queue/index.js';
import type { IngestContext } from './context.js';
import type { Problems } from './problems.js';
import { leftInSpool, spoolAudio, type AudioInspection, type ValidAudio } from './recording-audio.js';
import { DiskFullError } from './spool.js';

export interface TakenAudio {
  /** The audio in the spool, or null. */
  spoolPath: string | null;
  /**
   * The audio the recording is queued with (its length, rate, size), spooled or not (a disk
   * running low); null when there is none, or it vanished while being taken (the detections
   * then go without a recording).
   */
  audio: ValidAudio | null;
  /**
   * The spool file's modification time (whole ms) once taken, which the encode checks it against
   * with the size: a hard link only, the analyzer's own inode (audio/audio-reference.ts
   * QueuedAudio); null for a copy, a reference (its name carries its identity) or none.
   */
  mtimeMs: number | null;
  state: 'spooled' | 'none' | 'existing';
}

export interface TakeAudioInput {
  /** The recording queued from an earlier read of the file, if any. */
  existing: RecordingItem | undefined;
  /** The analyzer's audio as inspected. */
  inspected: AudioInspection | null;
  /** Audio linked into incoming/ on sight (analyzerpi). */
  spooledAudio: string | undefined;
  sourceKey: string;
  problems: Problems;
  /** The analyzer keeps its audio (results mode, not analyzerpi): a reference may do instead of a copy. */
  analyzerKeepsAudio: boolean;
}

export async function takeAudio(ctx: IngestContext, input: TakeAudioInput): Promise<TakenAudio> {
  const { existing, inspected, problems } = input;
  if (existing) {
    // Queued before: its audio is in the spool already (or was uploaded and removed); a new link is not wanted.
    if (input.spooledAudio) await rm(input.spooledAudio, { force: true });
    return { spoolPath: existing.spoolPath, audio: null, mtimeMs: null, state: 'existing' };
  }
  const audio = inspected?.kind === 'wav' || inspected?.kind === 'flac' ? inspected : null;
  if (!audio && inspected?.kind === 'missing') {
    // A crash after the audio was moved into the spool but before its row was committed
    // left it under its spool name: take it from there instead of losing it.
    const left = await leftInSpool(ctx, input.sourceKey);
    if (left) {
      problems.remove(inspected.message);
      return { spoolPath: left.path, audio: left, mtimeMs: await spooledMtime(left.path), state: 'spooled' };
    }
  }
  if (!audio) return { spoolPath: null, audio: null, mtimeMs: null, state: 'none' };
  // Copying audio into the spool can take seconds on an SD card: `ingest` commits its
  // open batch first, so a daemon beside it never waits that long for the write lock.
  ctx.writes?.commit();
  try {
    const spoolPath = await spoolAudio(ctx, audio, Boolean(input.spooledAudio), input.sourceKey, input.analyzerKeepsAudio);
    if (!spoolPath) problems.add(`${audio.path}: not spooled, free disk space is below disk.minFreeMb; detections go without a soundscape`);
    else if (audio.recovered) problems.add(`${audio.recovered}; uploaded as recovered`);
    return { spoolPath, audio, mtimeMs: spoolPath ? await spooledMtime(spoolPath) : null, state: spoolPath ? 'spooled' : 'none' };
  } catch (err) {
    if (err instanceof DiskFullError) {
      problems.add(`${err.message}; detections go without a soundscape`);
      return { spoolPath: null, audio, mtimeMs: null, state: 'none' };
    }
    if (err instanceof NotRegularFileError) {
      // Swapped for a FIFO or a link after its header was read.
      problems.add(`${err.message}; detections go without a soundscape`);
      return { spoolPath: null, audio: null, mtimeMs: null, state: 'none' };
    }
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !(await stat(audio.path).catch(() => null))) {
      // Deleted between reading its header and taking it (the analyzer cleaning up):
      // as if it had never been there, rather than losing the detections with the file.
      problems.add(`${audio.path}: audio deleted before it could be spooled; detections go without a soundscape`);
      return { spoolPath: null, audio: null, mtimeMs: null, state: 'none' };
    }
    throw err;
  }
}

/**
 * The modification time the encode holds a spool file to: only while it is a hard link to a
 * name of the analyzer's (more than one link to its inode), which an analyzer rewriting its
 * file in place rewrites too. A copy is the agent's alone, and a link whose analyzer name is
 * gone (analyzerpi deletes its WAVs) has nobody left to rewrite it; checking their time would
 * only refuse good audio after a power cut, which may take back a time the file system had not
 * yet made durable (test:powercut lost 6 to 15 soundscapes so: each copy's time came back 2 to 5
 * ms earlier than queued). One lstat, no write; null for a reference (its name carries its
 * identity), such a file, or one that cannot be read.
 */
async function spooledMtime(spoolPath: string): Promise<number | null> {
  if (isAudioReference(spoolPath)) return null;
  const st = await lstat(spoolPath).catch(() => null);
  return st && st.nlink > 1 ? Math.floor(st.mtimeMs) : null;
}

/**
 * Nothing of the recording's first batch was queued: audio that came from incoming/ goes back
 * there (the analyzer has deleted its own copy: this is the only one); a copy of a file that
 * still exists goes.
 */
export async function giveBackAudio(spoolPath: string, spooledAudio: string | undefined): Promise<void> {
  if (spooledAudio) await rename(spoolPath, spooledAudio).catch(() => undefined);
  else await rm(spoolPath, { force: true });
}
