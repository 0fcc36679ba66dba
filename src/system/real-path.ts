import { realpath } from 'node:fs/promises';
import path from 'node:path';

/**
 * The real path of `p` (symlinks resolved) where it does not exist yet: its nearest
 * existing ancestor resolved, the rest appended. A dataDir or input folder named in the
 * config may not have been created when it is compared with the other.
 */
export async function realPathOfExisting(p: string): Promise<string> {
  const abs = path.resolve(p);
  const rest: string[] = [];
  for (let dir = abs; ; dir = path.dirname(dir)) {
    try {
      return path.join(await realpath(dir), ...rest);
    } catch {
      if (path.dirname(dir) === dir) return abs;
      rest.unshift(path.basename(dir));
    }
  }
}
