import { statfsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diskFree } from '../../src/system/disk.js';
import { tempDir } from '../helpers/paths.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('station-agent-disk-'));
});
afterEach(() => cleanup());

describe('diskFree', () => {
  it('reports the space of the file system holding a folder, in bytes', async () => {
    const space = await diskFree(dir);
    const s = statfsSync(dir);
    expect(space.totalBytes).toBe(s.blocks * s.bsize);
    expect(space.totalBytes).toBeGreaterThan(0);
    expect(space.freeBytes).toBeGreaterThanOrEqual(0);
    expect(space.freeBytes).toBeLessThanOrEqual(space.totalBytes);
    expect(space.freeBytes % s.bsize).toBe(0);
  });

  it('rejects a path that does not exist', async () => {
    await expect(diskFree(path.join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
