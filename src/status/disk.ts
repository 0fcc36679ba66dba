import { statfs } from 'node:fs/promises';
import path from 'node:path';

/**
 * Free space on the file system that holds `dir` (the nearest existing parent when
 * `dir` does not exist yet): what `disk.minFreeMb` is compared with.
 */
export async function freeBytes(dir: string): Promise<number | null> {
  let current = path.resolve(dir);
  for (;;) {
    try {
      const s = await statfs(current);
      return s.bavail * s.bsize;
    } catch (err) {
      const parent = path.dirname(current);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === current) return null;
      current = parent;
    }
  }
}
