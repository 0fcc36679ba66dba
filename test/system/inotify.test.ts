import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INOTIFY_MAX_USER_WATCHES_FILE, inotifyMaxUserWatches } from '../../src/system/inotify.js';
import { tempDir } from '../helpers/paths.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('station-agent-inotify-'));
});
afterEach(() => cleanup());

describe('inotifyMaxUserWatches', () => {
  it('reads the number from the file', async () => {
    const file = path.join(dir, 'max_user_watches');
    writeFileSync(file, '8192\n');
    expect(await inotifyMaxUserWatches(file)).toBe(8192);
  });

  it('gives null for a missing or unreadable value', async () => {
    expect(await inotifyMaxUserWatches(path.join(dir, 'absent'))).toBeNull();
    const file = path.join(dir, 'odd');
    writeFileSync(file, 'lots\n');
    expect(await inotifyMaxUserWatches(file)).toBeNull();
  });

  it.runIf(existsSync(INOTIFY_MAX_USER_WATCHES_FILE))("reads this machine's limit", async () => {
    expect(await inotifyMaxUserWatches()).toBeGreaterThan(0);
  });
});
