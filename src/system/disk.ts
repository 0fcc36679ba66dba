import { statfs } from 'node:fs/promises';

export interface DiskSpace {
  /** Bytes an unprivileged process may still write (`f_bavail`: excludes root's reserve). */
  freeBytes: number;
  totalBytes: number;
}

/** Space on the file system holding `path` (which must exist). */
export async function diskFree(path: string): Promise<DiskSpace> {
  const s = await statfs(path);
  return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
}
