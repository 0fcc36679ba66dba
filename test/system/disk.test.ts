import { statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diskFree, freeBytesNear, isDiskLow, minFreeBytes } from '../../src/system/disk.js';
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

describe('freeBytesNear and isDiskLow', () => {
  it('measures the nearest existing parent of a folder that does not exist yet', async () => {
    const free = await freeBytesNear(path.join(dir, 'not', 'yet'));
    expect(free).toEqual(expect.any(Number));
    expect(free! % statfsSync(dir).bsize).toBe(0);
  });

  it('is null when the path cannot be measured (a file where a folder should be)', async () => {
    const file = path.join(dir, 'file');
    writeFileSync(file, 'x');
    expect(await freeBytesNear(path.join(file, 'below'))).toBeNull();
  });

  it('is low strictly below disk.minFreeMb', () => {
    expect(isDiskLow(minFreeBytes(100) - 1, 100)).toBe(true);
    expect(isDiskLow(minFreeBytes(100), 100)).toBe(false);
    expect(isDiskLow(0, 0)).toBe(false);
  });
});
