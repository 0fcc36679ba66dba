import { statfsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import path from 'node:path';

/**
 * Free disk space, in one place: how it is measured (statfs `f_bavail`: what an
 * unprivileged process may still write, root's reserve excluded) and when it is "low"
 * (below `disk.minFreeMb`: no audio is spooled). The daemon's disk monitor, ingest's
 * spool, `status` and `doctor` all ask here.
 */
export interface DiskSpace {
  freeBytes: number;
  totalBytes: number;
}

const MIB = 1024 * 1024;

/** Space on the file system holding `dir` (which must exist). */
export async function diskFree(dir: string): Promise<DiskSpace> {
  const s = await statfs(dir);
  return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
}

/**
 * `diskFree` as one synchronous call, for ingest's once-per-recording check of the spool's
 * card: a statfs of a local file system answers from the kernel's counters, and through
 * libuv's thread pool it costs several times the call (a request, a thread woken, a
 * completion and a promise). Not for a folder that may be on a network mount.
 */
export function diskFreeSync(dir: string): DiskSpace {
  const s = statfsSync(dir);
  return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
}

/**
 * Free bytes on the file system that holds `dir`, or of its nearest existing parent
 * when `dir` does not exist yet (status and doctor on a new station); null when
 * nothing on the path can be read.
 */
export async function freeBytesNear(dir: string): Promise<number | null> {
  let current = path.resolve(dir);
  for (;;) {
    try {
      return (await diskFree(current)).freeBytes;
    } catch (err) {
      const parent = path.dirname(current);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === current) return null;
      current = parent;
    }
  }
}

/** statfs `f_type` of the RAM file systems. */
export const TMPFS_MAGIC = 0x01021994;
export const RAMFS_MAGIC = 0x858458f6;

/**
 * `tmpfs` or `ramfs` when `dir` (or its nearest existing parent) lives in RAM, else null.
 * A dataDir there loses the queue at every reboot and power cut, though nothing fails:
 * `run` and `doctor` say so (issue 35).
 */
export async function ramFileSystemNear(dir: string): Promise<'tmpfs' | 'ramfs' | null> {
  let current = path.resolve(dir);
  for (;;) {
    try {
      const { type } = await statfs(current);
      return type === TMPFS_MAGIC ? 'tmpfs' : type === RAMFS_MAGIC ? 'ramfs' : null;
    } catch (err) {
      const parent = path.dirname(current);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === current) return null;
      current = parent;
    }
  }
}

/** What `run` and `doctor` say about a dataDir in RAM. */
export function ramDataDirWarning(dataDir: string, fs: 'tmpfs' | 'ramfs'): string {
  return (
    `dataDir ${dataDir} is on a RAM file system (${fs}): the queue, its spool and what it has not uploaded are lost at every reboot or power cut; ` +
    'put dataDir on the card or a disk (the default /var/lib/station-agent)'
  );
}

/** `disk.minFreeMb` in bytes. */
export function minFreeBytes(minFreeMb: number): number {
  return minFreeMb * MIB;
}

/**
 * Below twice `disk.minFreeMb`: getting low. `doctor` warns, and the encoder keeps its
 * work off the card before ingest stops spooling audio at the limit itself.
 */
export function isDiskGettingLow(freeBytes: number, minFreeMb: number): boolean {
  return freeBytes < 2 * minFreeBytes(minFreeMb);
}

/**
 * Below `disk.minFreeMb`: no new audio is spooled (detections still queue).
 * @example isDiskLow(50 * 1024 * 1024, 100) // true
 */
export function isDiskLow(freeBytes: number, minFreeMb: number): boolean {
  return freeBytes < minFreeBytes(minFreeMb);
}
