import { linkSync, lstatSync, symlinkSync, unlinkSync, type Stats } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { identityProblem, referenceName } from '../audio/audio-reference.js';
import { syncDirectory } from '../audio/flac-encode-job.js';
import { StationAgentError, type CodeOf } from '../errors.js';
import { diskFree, diskFreeSync } from '../system/disk.js';
import type { ReadableFile } from '../system/regular-file.js';

/**
 * The spool: the agent's own copies of audio waiting to be encoded and uploaded,
 * under `dataDir/spool`. The analyzerpi analyzer deletes each WAV seconds after
 * analysing it, uploaded or not, so the agent takes its own reference the moment a
 * WAV appears: a hard link costs no space and no write; where the spool is on
 * another filesystem (a RAM disk, another card) it copies instead.
 *
 * Unless the owner chose `input.ramDiskAudio: keep`: the audio then waits for its upload
 * on the analyzer's own file system, as a hard link in `<input.dir>/.station-agent-spool`
 * (the "near" spool, with its own `incoming/`), and nothing is written to the card. A
 * power cut or reboot empties a RAM disk: the recordings whose audio is gone fail at
 * upload (their audio cannot be read) and their detections go without a soundscape. While
 * less than half of that file system is free, audio is copied onto the card as without
 * the choice, so the analyzer always has room to write (an outage lasts longer than a
 * RAM disk holds). The near spool is used only where `input.dir` and `dataDir` are on
 * different file systems.
 *
 * Where they are on one file system but a link between them still fails (EXDEV: they are
 * separate mounts in this mount namespace, as in the installed unit, whose
 * `StateDirectory=` under `ProtectSystem=strict` bind-mounts dataDir), the near spool takes
 * the links instead, whatever `input.ramDiskAudio` says: on the card's own file system it
 * is as safe as dataDir, and nothing is copied. It needs `input.dir` writable to the agent
 * (the unit's `ReadWritePaths=`); where it is not, the audio is copied, and {@link Spool.taken}
 * says so. Whether a link works is found by trying it, where and as the daemon works:
 * `st_dev` is the same across a bind mount, and a mount table read elsewhere (the CLI's) is
 * another namespace's.
 *
 * In results mode, where the analyzer keeps its files, a recording whose audio can be linked
 * nowhere while `input.dir` is on dataDir's file system (the unit without write access to
 * `input.dir`; or fs.protected_hardlinks refusing another user's file) is held by reference
 * instead of copied: a symbolic link to the analyzer's file, named by its identity
 * (audio/audio-reference.ts), checked before it is encoded. Nothing is written but the
 * link's folder entry. Not for analyzerpi, whose analyzer deletes each WAV seconds after
 * analysis, nor across file systems (a RAM disk empties at a reboot: `input.ramDiskAudio`).
 */
export class DiskFullError extends StationAgentError {
  readonly code: CodeOf<'DiskFullError'> = 'ERR_DISK_FULL';
}

/** The near spool's folder in `input.dir` (hidden: never read as input). */
export const NEAR_SPOOL_NAME = '.station-agent-spool';

/**
 * How the audio came into the spool since the process started (the daemon's runtime
 * snapshot: `doctor` and `status` report it). A WAV linked on sight (analyzerpi) counts
 * when it is linked, wanted later or not.
 */
export interface AudioTakeCounts {
  /** Audio files hard-linked: no byte written. */
  linked: number;
  /** Audio files held by reference to the analyzer's own file (results mode): no byte written. */
  referenced: number;
  /** Audio files copied onto the spool's file system. */
  copied: number;
  copiedBytes: number;
  /** Why the last copy was made (the failed link, in words); null before any. */
  lastCopyWhy: string | null;
  lastCopyAt: number | null;
  /** The near spool when links go there (`input.ramDiskAudio: keep`, or dataDir a mount apart). */
  nearDir: string | null;
}

export class Spool {
  readonly dir: string;
  /** The near spool, once {@link init} or a failed link into dataDir found it usable. */
  nearDir: string | null = null;
  /** What taking audio did since start (the runtime snapshot's `audio`). */
  readonly taken: AudioTakeCounts = { linked: 0, referenced: 0, copied: 0, copiedBytes: 0, lastCopyWhy: null, lastCopyAt: null, nearDir: null };
  private readonly wantedNearDir: string | null;
  /**
   * The near spool on dataDir's own file system: made only once a link into dataDir fails
   * with EXDEV (a mount apart), and never held back for room (it is the card's space either way).
   */
  private sameDeviceNear: string | null = null;
  private nearMade: Promise<string | null> | null = null;
  private nearOnCard = false;
  /** Why a link into the spool is not possible (the last EXDEV, EPERM, ...). */
  private linkBlocked: string | null = null;
  /** Why the near spool on dataDir's file system could not be made. */
  private nearProblem: string | null = null;

  /**
   * @param keepNear `input.dir` when the owner chose `input.ramDiskAudio: keep`, else null
   * @param inputDir `input.dir` (where a near spool on dataDir's file system may go); default `keepNear`
   */
  constructor(dataDir: string, keepNear: string | null = null, private readonly inputDir: string | null = keepNear) {
    this.dir = path.join(dataDir, 'spool');
    this.wantedNearDir = keepNear ? path.join(keepNear, NEAR_SPOOL_NAME) : null;
  }

  /** Where analyzerpi WAVs are linked on sight: the near spool's `incoming/` when there is one. */
  get incomingDir(): string {
    return path.join(this.nearDir ?? this.dir, 'incoming');
  }

  /** The spool's own `incoming/`, on the card: where a WAV held open is copied. */
  get cardIncomingDir(): string {
    return path.join(this.dir, 'incoming');
  }

  /** Every `incoming/` a WAV may wait in (swept for WAVs whose result never came). */
  get incomingDirs(): string[] {
    return this.nearDir ? [this.incomingDir, this.cardIncomingDir] : [this.cardIncomingDir];
  }

  /**
   * Creates the folders. Returns why the near spool is not used although it was chosen
   * (input.dir on the card's file system, or its folder cannot be made), for the log; null otherwise.
   */
  async init(): Promise<string | null> {
    await mkdir(path.join(this.dir, 'incoming'), { recursive: true, mode: 0o700 });
    if (!this.inputDir) return null;
    const input = this.inputDir;
    try {
      const [a, b] = await Promise.all([stat(input), stat(this.dir)]);
      if (a.dev === b.dev) {
        this.sameDeviceNear = path.join(input, NEAR_SPOOL_NAME);
        // A near spool made by an earlier start (dataDir a mount apart then): used again at once,
        // so that its incoming/ is swept and its WAVs found.
        if (await stat(path.join(this.sameDeviceNear, 'incoming')).then((st) => st.isDirectory(), () => false)) this.useNear(this.sameDeviceNear, true);
        return this.wantedNearDir ? `input.ramDiskAudio keep: ${input} is on the file system of dataDir; its audio stays on that file system, linked, not copied` : null;
      }
      if (!this.wantedNearDir) return null;
      await mkdir(path.join(this.wantedNearDir, 'incoming'), { recursive: true, mode: 0o700 });
      this.useNear(this.wantedNearDir, false);
      return null;
    } catch (err) {
      if (!this.wantedNearDir) return null;
      return `input.ramDiskAudio keep: cannot use ${this.wantedNearDir} (${(err as Error).message}); audio is copied into ${this.dir}`;
    }
  }

  /** Where a recording's audio lives in the spool: beside `near` when that file is in the near spool. */
  pathFor(name: string, near?: string): string {
    return path.join(near && this.isNear(near) ? this.nearDir! : this.dir, name);
  }

  /** Whether `file` is in the near spool (not on the card). */
  isNear(file: string): boolean {
    return this.nearDir !== null && file.startsWith(this.nearDir + path.sep);
  }

  /** The near spool may take more audio: at least half of its file system is free (always, on dataDir's own). */
  async nearHasRoom(): Promise<boolean> {
    if (!this.nearDir) return false;
    if (this.nearOnCard) return true;
    const space = await diskFree(this.nearDir).catch(() => null);
    return space !== null && space.freeBytes * 2 >= space.totalBytes;
  }

  /**
   * Takes a reference to `source` under the spool name `name`: a hard link into the
   * spool, else into the near spool (while it has room), else a crash-safe copy (to
   * `.part`, fsync, rename) into the spool. `handle` is `source` as the caller opened
   * it with `openRegularFile` (a FIFO or symlink is refused, never linked) and read its
   * header from; the caller closes it.
   * `mayRefer`: the analyzer keeps `source` (results mode), so where no link is possible on
   * dataDir's file system, a reference to it does instead of a copy.
   * @returns how the file came, and where it is now
   */
  async take(source: string, name: string, handle: ReadableFile, options: { mayRefer?: boolean } = {}): Promise<{ how: 'link' | 'reference' | 'copy'; path: string }> {
    const dest = this.pathFor(name);
    if (await this.tryLink(source, dest, handle)) return this.linked({ how: 'link', path: dest });
    const nearDir = await this.nearForLink();
    if (nearDir) {
      const near = path.join(nearDir, name);
      if (await this.tryLink(source, near, handle)) return this.linked({ how: 'link', path: near });
    }
    if (options.mayRefer && this.sameDeviceNear) {
      const ref = await this.refer(source, name, handle);
      if (ref) return { how: 'reference', path: ref };
    }
    await this.copyFromHandle(handle, dest, source);
    return { how: 'copy', path: dest };
  }

  /**
   * A symbolic link in the spool to `source`, named by the identity of the file `handle` read
   * (audio/audio-reference.ts); null when it cannot be made, or `source` is no longer that file.
   */
  private async refer(source: string, name: string, handle: ReadableFile): Promise<string | null> {
    const opened = await handle.stat();
    const identity = { ino: opened.ino, size: opened.size, mtimeMs: Math.floor(opened.mtimeMs) };
    const ref = path.join(this.dir, referenceName(name, identity));
    try {
      removeName(ref);
      symlinkSync(path.resolve(source), ref);
    } catch {
      return null;
    }
    // The name must still be the file that was read (not swapped between the open and the link).
    if (identityProblem(lstatOrNull(source), identity) || opened.dev !== lstatOrNull(source)?.dev) {
      removeName(ref);
      return null;
    }
    this.taken.referenced++;
    return ref;
  }

  /**
   * analyzerpi: links a WAV into an `incoming/` on sight, before the analyzer deletes it: the
   * spool's own, else the near spool's (while it has room). False when no link is possible
   * (the caller holds the file open instead).
   */
  async linkIncoming(source: string, handle: ReadableFile): Promise<boolean> {
    const name = path.basename(source);
    // With a near spool, the card's incoming/ is on another mount or file system: not tried.
    if (!this.nearDir && (await this.tryLink(source, path.join(this.cardIncomingDir, name), handle))) return this.linked(true);
    const nearDir = await this.nearForLink();
    if (nearDir && (await this.tryLink(source, path.join(nearDir, 'incoming', name), handle))) return this.linked(true);
    return false;
  }

  /** Where a link goes once one into dataDir failed: the near spool while it has room, made on the first EXDEV on dataDir's file system. */
  private async nearForLink(): Promise<string | null> {
    if (this.nearDir) return (await this.nearHasRoom()) ? this.nearDir : null;
    if (!this.sameDeviceNear || !this.linkBlocked?.startsWith('EXDEV')) return null;
    // Made once (links on sight run side by side); a folder that cannot be made is not tried again for every recording.
    return (this.nearMade ??= this.makeNear(this.sameDeviceNear));
  }

  private async makeNear(near: string): Promise<string | null> {
    try {
      // One level at a time: a recursive mkdir reports a read-only mount as ENOENT, not EROFS.
      for (const dir of [near, path.join(near, 'incoming')]) {
        await mkdir(dir, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
      }
    } catch (err) {
      this.nearProblem = `the near spool ${near} cannot be made there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}: the agent needs input.dir writable, e.g. the unit's ReadWritePaths=)`;
      return null;
    }
    this.useNear(near, true);
    return near;
  }

  private useNear(dir: string, onCard: boolean): void {
    this.nearDir = dir;
    this.nearOnCard = onCard;
    this.taken.nearDir = dir;
  }

  private linked<T>(value: T): T {
    this.taken.linked++;
    return value;
  }

  /**
   * A hard link only: true when linked, false when the spool is on another
   * filesystem or mount (EXDEV; also inside the installed unit, where the state directory
   * and /home are mounts of their own), links are refused, or the name is gone already. Never copies. `handle` is `source` opened
   * with `openRegularFile`: the link must be to that very file, so a name swapped for
   * a FIFO or a symlink in between is not linked (link(2) would link either).
   */
  async tryLink(source: string, dest: string, handle: ReadableFile): Promise<boolean> {
    // Synchronous calls: a link is a change to two folders' entries, no data written and
    // nothing waited for (no fsync); through the thread pool each call would cost several
    // times its own CPU (see ReadableFile in system/regular-file.ts). The link is tried
    // first: a name left there (a crash between a link and its commit) is rare, and an
    // unlink of a name that is not there costs a system call and an error object.
    try {
      linkOver(source, dest);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EXDEV' || code === 'EPERM' || code === 'EACCES' || code === 'ENOTSUP') {
        this.linkBlocked = `${code}: ${source} cannot be hard-linked into ${path.dirname(dest)}${LINK_REFUSED[code] ?? ''}`;
        return false;
      }
      // The analyzer deleted the name between our open and the link: the data lives on
      // in `handle`, which the caller copies from (or holds) instead of losing the audio.
      if (code === 'ENOENT' && (await handle.stat()).nlink === 0) return false;
      throw this.wrap(err, source);
    }
    const opened = await handle.stat();
    const linked = lstatSync(dest);
    if (opened.ino === linked.ino && opened.dev === linked.dev) return true;
    removeName(dest);
    return false;
  }

  /**
   * Copies from an open file (whose name the analyzer may already have deleted: the
   * data lives as long as a descriptor does) to `dest`, crash-safely; counted in {@link taken}.
   * @returns the bytes written
   */
  async copyFromHandle(handle: ReadableFile, dest: string, what: string): Promise<number> {
    const part = `${dest}.part`;
    let pos = 0;
    try {
      const out = await open(part, 'w', 0o600);
      try {
        // A plain loop over one 64 KiB buffer: positional reads leave the handle usable, memory stays flat.
        const buf = Buffer.allocUnsafe(64 * 1024);
        for (;;) {
          const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
          if (bytesRead === 0) break;
          await out.write(buf, 0, bytesRead);
          pos += bytesRead;
        }
        await out.sync();
      } finally {
        await out.close();
      }
      await rename(part, dest);
      // The rename made durable before the queue row that names `dest` is committed: a power
      // cut must not keep the row and lose the name (issue 35). Copies only: a link, or the
      // rename of one, writes no data (on ext4, the card's file system, the WAL's fsync then
      // commits the journal that holds its folder entry; a folder fsync each would be a 4th).
      await syncDirectory(path.dirname(dest));
      const t = this.taken;
      t.copied++;
      t.copiedBytes += pos;
      t.lastCopyAt = Date.now();
      const why = this.linkBlocked ?? `${what} was deleted before it could be linked (copied from the open file)`;
      t.lastCopyWhy = this.nearProblem ? `${why}; ${this.nearProblem}` : why;
      return pos;
    } catch (err) {
      await rm(part, { force: true });
      throw this.wrap(err, what);
    }
  }

  async remove(file: string): Promise<void> {
    await rm(file, { force: true });
  }

  /** Free bytes on the spool's filesystem (asked once per recording: a synchronous statfs, see diskFreeSync). */
  freeBytes(): number {
    return diskFreeSync(this.dir).freeBytes;
  }

  private wrap(err: unknown, source: string): Error {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      return new DiskFullError(`no space left in the spool ${this.dir} for ${source}`, { cause: err });
    }
    return err as Error;
  }
}

/** What a refused link means, for the reason recorded with the copies. */
const LINK_REFUSED: Record<string, string> = {
  EXDEV: ' (another file system, or a mount apart in this mount namespace)',
  EPERM: ' (with fs.protected_hardlinks, a user links only files it owns or may write: run the agent as the analyzer\'s user)',
};

/** Hard-links `source` as `dest`, replacing a name already there. */
function linkOver(source: string, dest: string): void {
  try {
    linkSync(source, dest);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    removeName(dest);
    linkSync(source, dest);
  }
}

function lstatOrNull(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch {
    return null;
  }
}

/** Removes the name `file` if it exists (a file; a folder there is an error, as with `rm`). */
function removeName(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
