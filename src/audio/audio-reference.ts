import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { AudioFileError } from './errors.js';

/**
 * A recording's audio held by reference: results mode, where the analyzer keeps its files,
 * and where the spool can neither hard-link the file (the installed unit's mounts: EXDEV
 * into dataDir, and input.dir not writable for the near spool; or fs.protected_hardlinks:
 * EPERM for another user's file) while input.dir is on the card's own file system. Instead of
 * copying the WAV onto the card, the spool holds a symbolic link to the analyzer's file, whose
 * name carries the file's identity as it was queued: `<name>.ref-<ino>-<size>-<mtime ms>.<kind>`.
 *
 * Whoever reads the audio resolves it here first: the analyzer's file must still be that
 * file (same inode, size and modification time, a regular file, not a symbolic link), or the
 * recording's audio is refused (an AudioFileError: its detections go without a soundscape)
 * rather than uploading something else under its name. Whoever removes spool files removes
 * the link, never the analyzer's file; nothing is ever written beside the analyzer's file.
 * Every other reader of the spool opens with O_NOFOLLOW, so a reference can only fail there,
 * never lead elsewhere.
 */
export interface AudioIdentity {
  ino: number;
  size: number;
  /** Whole milliseconds. */
  mtimeMs: number;
}

const REFERENCE = /\.ref-(\d+)-(\d+)-(\d+)\.(wav|flac)$/i;

/** The spool name of a reference to a file with `identity`, for the spool name `name` (`<hash>.wav`). */
export function referenceName(name: string, identity: AudioIdentity): string {
  const ext = path.extname(name);
  return `${name.slice(0, -ext.length)}.ref-${identity.ino}-${identity.size}-${Math.floor(identity.mtimeMs)}${ext}`;
}

/** Whether a spool path is a reference to the analyzer's file (by its name; no file system call). */
export function isAudioReference(spoolPath: string): boolean {
  return REFERENCE.test(path.basename(spoolPath));
}

/**
 * A spool path under the recording's own name: a reference's without the identity
 * (`<hash>.ref-<ino>-<size>-<mtime ms>.wav` is `<hash>.wav`), any other as it is. By name, no
 * file system call.
 */
export function unreferencedPath(spoolPath: string): string {
  const m = REFERENCE.exec(path.basename(spoolPath));
  return m ? spoolPath.slice(0, spoolPath.length - m[0].length) + `.${m[4]}` : spoolPath;
}

/**
 * The file to read for a spool path: itself, or for a reference the analyzer's file, once its
 * identity is checked (`identity`: what the reader checks again on the descriptor it reads).
 * @throws AudioFileError when the analyzer's file is gone or is no longer the one queued
 */
export async function resolveSpoolAudio(spoolPath: string): Promise<{ path: string; identity: AudioIdentity | null }> {
  const m = REFERENCE.exec(path.basename(spoolPath));
  if (!m) return { path: spoolPath, identity: null };
  const want: AudioIdentity = { ino: Number(m[1]), size: Number(m[2]), mtimeMs: Number(m[3]) };
  let target: string;
  try {
    target = path.resolve(path.dirname(spoolPath), await readlink(spoolPath));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EINVAL') return { path: spoolPath, identity: null }; // a file of that name: read as it is
    throw err;
  }
  const st = await lstat(target).catch(() => null);
  const problem = identityProblem(st, want);
  if (problem) throw new AudioFileError(target, 'changed', `the analyzer's file is not the one queued (${problem}); not uploaded under its recording`);
  return { path: target, identity: want };
}

/** Why `st` is not the file of `want` (its inode checked when given), or null. */
export function identityProblem(
  st: { isFile(): boolean; isSymbolicLink?(): boolean; ino: number; size: number; mtimeMs: number } | null,
  want: Omit<AudioIdentity, 'ino'> & { ino?: number },
): string | null {
  if (!st) return 'it is gone';
  if (st.isSymbolicLink?.() || !st.isFile()) return 'it is no longer a regular file';
  if (want.ino !== undefined && st.ino !== want.ino) return `another file under its name: inode ${st.ino}, queued ${want.ino}`;
  if (st.size !== want.size) return `its size is ${st.size} bytes, queued ${want.size}`;
  if (Math.floor(st.mtimeMs) !== want.mtimeMs) return `modified since it was queued (mtime ${Math.floor(st.mtimeMs)}, queued ${want.mtimeMs})`;
  return null;
}

/**
 * A spool WAV as its recording was queued (the queue's `filesize` and `audio_mtime_ms`), from
 * the analyzer's file `source`. A hard link is the analyzer's own inode: an analyzer that
 * rewrites the file in place (truncate and write, not a new file renamed over it) changes
 * what would be uploaded, which the size or the modification time shows (issue 35).
 */
export interface QueuedAudio {
  size: number;
  /** Whole milliseconds. */
  mtimeMs: number;
  source: string;
}

/** The refusal of a spool WAV that is no longer as it was queued, or null when it is. */
export function queuedAudioError(
  spoolPath: string,
  st: Parameters<typeof identityProblem>[0],
  queued: QueuedAudio,
): AudioFileError | null {
  const problem = identityProblem(st, queued);
  if (!problem) return null;
  return new AudioFileError(
    spoolPath,
    'changed',
    `the audio changed after its recording was queued from ${queued.source} (${problem}; rewritten in place?); not uploaded under its recording`,
  );
}
