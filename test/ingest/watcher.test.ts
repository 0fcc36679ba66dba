import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputWatcher } from '../../src/ingest/watcher.js';
import { tempDir } from '../helpers/paths.js';

let cleanup: (() => void) | undefined;
let watcher: InputWatcher | undefined;
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  cleanup?.();
});

/** inotify watches this process holds (Linux: one `inotify wd:` line per watch in fdinfo). */
function inotifyWatches(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== 'anon_inode:inotify') continue;
    n += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify wd:')).length;
  }
  return n;
}

async function until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('InputWatcher', () => {
  it('takes in a backlog of thousands of files with a bounded pending set, and releases the watches of finished files', async () => {
    const t = tempDir('watcher-');
    cleanup = t.cleanup;
    const total = 2_500;
    for (let i = 0; i < total; i++) writeFileSync(path.join(t.dir, `r${i}.BirdNET.results.csv`), 'x');
    const done = new Set<string>();
    let maxPending = 0;
    watcher = new InputWatcher({
      dir: t.dir,
      stableMs: 100,
      rescanIntervalMs: 0,
      isRelevant: (f) => f.endsWith('.csv'),
      isDone: (f) => done.has(f),
      onAppear: () => {
        maxPending = Math.max(maxPending, watcher!.pendingCount + 1);
      },
      onStable: (f) => {
        done.add(f);
        watcher!.forget(f);
      },
    });
    const before = inotifyWatches();
    await watcher.start();
    await until('every file', () => done.size === total);
    expect(maxPending).toBeLessThanOrEqual(1_000);
    // Finished files hold no watch: what is left is about the folder itself.
    expect(inotifyWatches() - before).toBeLessThan(50);
  });
});
