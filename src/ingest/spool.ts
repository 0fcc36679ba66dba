import { linkSync, lstatSync, unlinkSync } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { StationAgentError } from '../errors.js';
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
 */
export class DiskFullError extends StationAgentError {
  readonly code = 'ERR_DISK_FULL';
}

/** The near spool's folder in `input.dir` (hidden: never read as input). */
export const NEAR_SPOOL_NAME = '.station-agent-spool';

export class Spool {
  readonly dir: string;
  /** The near spool (`input.ramDiskAudio: keep`, input.dir on another file system), once {@link init} found it usable. */
  nearDir: string | null = null;
  private readonly wantedNearDir: string | null;

  /** @param keepNear `input.dir` when the owner chose `input.ramDiskAudio: keep`, else null */
  constructor(dataDir: string, keepNear: string | null = null) {
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
    if (!this.wantedNearDir) return null;
    const input = path.dirname(this.wantedNearDir);
    try {
      const [a, b] = await Promise.all([stat(input), stat(this.dir)]);
      if (a.dev === b.dev) return `input.ramDiskAudio keep: ${input} is on the file system of dataDir; the spool hard-links its audio, nothing is copied`;
      await mkdir(path.join(this.wantedNearDir, 'incoming'), { recursive: true, mode: 0o700 });
      this.nearDir = this.wantedNearDir;
      return null;
    } catch (err) {
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

  /** The near spool may take more audio: at least half of its file system is free. */
  async nearHasRoom(): Promise<boolean> {
    if (!this.nearDir) return false;
    const space = await diskFree(this.nearDir).catch(() => null);
    return space !== null && space.freeBytes * 2 >= space.totalBytes;
  }

  /**
   * Takes a reference to `source` under the spool name `name`: a hard link into the
   * spool, else into the near spool (while it has room), else a crash-safe copy (to
   * `.part`, fsync, rename) into the spool. `handle` is `source` as the caller opened
   * it with `openRegularFile` (a FIFO or symlink is refused, never linked) and read its
   * header from; the caller closes it.
   * @returns how the file came, and where it is now
   */
  async take(source: string, name: string, handle: ReadableFile): Promise<{ how: 'link' | 'copy'; path: string }> {
    const dest = this.pathFor(name);
    if (await this.tryLink(source, dest, handle)) return { how: 'link', path: dest };
    if (await this.nearHasRoom()) {
      const near = path.join(this.nearDir!, name);
      if (await this.tryLink(source, near, handle)) return { how: 'link', path: near };
    }
    await this.copyFromHandle(handle, dest, source);
    return { how: 'copy', path: dest };
  }

  /**
   * A hard link only: true when linked, false when the spool is on another
   * filesystem or mount (EXDEV; also inside systemd's ProtectHome, where /home is a
   * separate mount), links are refused, or the name is gone already. Never copies. `handle` is `source` opened
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
      if (code === 'EXDEV' || code === 'EPERM' || code === 'EACCES' || code === 'ENOTSUP') return false;
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
   * data lives as long as a descriptor does) to `dest`, crash-safely.
   */
  async copyFromHandle(handle: ReadableFile, dest: string, what: string): Promise<void> {
    const part = `${dest}.part`;
    try {
      const out = await open(part, 'w', 0o600);
      try {
        // A plain loop over one 64 KiB buffer: positional reads leave the handle usable, memory stays flat.
        const buf = Buffer.allocUnsafe(64 * 1024);
        for (let pos = 0; ; ) {
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

/** Removes the name `file` if it exists (a file; a folder there is an error, as with `rm`). */
function removeName(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
