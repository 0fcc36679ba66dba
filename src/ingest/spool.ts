import { link, lstat, mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { StationAgentError } from '../errors.js';
import { diskFree } from '../system/disk.js';

/**
 * The spool: the agent's own copies of audio waiting to be encoded and uploaded,
 * under `dataDir/spool`. The analyzerpi analyzer deletes each WAV seconds after
 * analysing it, uploaded or not, so the agent takes its own reference the moment a
 * WAV appears: a hard link costs no space and no write; where the spool is on
 * another filesystem (a RAM disk, another card) it copies instead.
 */
export class DiskFullError extends StationAgentError {
  readonly code = 'ERR_DISK_FULL';
}

export class Spool {
  readonly dir: string;
  readonly incomingDir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'spool');
    this.incomingDir = path.join(this.dir, 'incoming');
  }

  async init(): Promise<void> {
    await mkdir(this.incomingDir, { recursive: true, mode: 0o700 });
  }

  /** Where a recording's audio lives in the spool. */
  pathFor(name: string): string {
    return path.join(this.dir, name);
  }

  /**
   * Takes a reference to `source` under `dest` in the spool: a hard link, or a
   * crash-safe copy (to `.part`, fsync, rename) across filesystems. `handle` is
   * `source` as the caller opened it with `openRegularFile` (a FIFO or symlink is
   * refused, never linked) and read its header from; the caller closes it.
   * @returns how the file came: 'link' or 'copy'
   */
  async take(source: string, dest: string, handle: FileHandle): Promise<'link' | 'copy'> {
    if (await this.tryLink(source, dest, handle)) return 'link';
    await this.copyFromHandle(handle, dest, source);
    return 'copy';
  }

  /**
   * A hard link only: true when linked, false when the spool is on another
   * filesystem or mount (EXDEV; also inside systemd's ProtectHome, where /home is a
   * separate mount), links are refused, or the name is gone already. Never copies. `handle` is `source` opened
   * with `openRegularFile`: the link must be to that very file, so a name swapped for
   * a FIFO or a symlink in between is not linked (link(2) would link either).
   */
  async tryLink(source: string, dest: string, handle: FileHandle): Promise<boolean> {
    await rm(dest, { force: true });
    try {
      await link(source, dest);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EXDEV' || code === 'EPERM' || code === 'EACCES' || code === 'ENOTSUP') return false;
      // The analyzer deleted the name between our open and the link: the data lives on
      // in `handle`, which the caller copies from (or holds) instead of losing the audio.
      if (code === 'ENOENT' && (await handle.stat()).nlink === 0) return false;
      throw this.wrap(err, source);
    }
    const [opened, linked] = await Promise.all([handle.stat(), lstat(dest)]);
    if (opened.ino === linked.ino && opened.dev === linked.dev) return true;
    await rm(dest, { force: true });
    return false;
  }

  /**
   * Copies from an open file (whose name the analyzer may already have deleted: the
   * data lives as long as a descriptor does) to `dest`, crash-safely.
   */
  async copyFromHandle(handle: FileHandle, dest: string, what: string): Promise<void> {
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

  /** Free bytes on the spool's filesystem. */
  async freeBytes(): Promise<number> {
    return (await diskFree(this.dir)).freeBytes;
  }

  private wrap(err: unknown, source: string): Error {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      return new DiskFullError(`no space left in the spool ${this.dir} for ${source}`, { cause: err });
    }
    return err as Error;
  }
}
