import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyPath } from '../../src/ingest/formats.js';
import { InputWatcher } from '../../src/ingest/watcher.js';
import { tempDir } from '../helpers/paths.js';
import { until } from '../helpers/until.js';

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


describe('InputWatcher', () => {
  // The bound is proven at a small scale (a bound of 40): 600 files overflow it many times,
  // without the run time of thousands of files on a busy machine.
  it('takes in a backlog far larger than its pending bound, and holds a watch per folder, none per file', async () => {
    const t = tempDir('watcher-');
    cleanup = t.cleanup;
    const total = 600;
    const maxPending = 40;
    for (let i = 0; i < total; i++) writeFileSync(path.join(t.dir, `r${i}.BirdNET.results.csv`), 'x');
    const done = new Set<string>();
    let mostPending = 0;
    watcher = new InputWatcher({
      dir: t.dir,
      stableMs: 100,
      rescanIntervalMs: 0,
      maxPending,
      classify: (f: string) => (f.endsWith('.csv') ? true : undefined),
      isDone: (f) => done.has(f),
      onAppear: () => {
        mostPending = Math.max(mostPending, watcher!.pendingCount + 1);
      },
      onStable: (f) => {
        done.add(f);
      },
    });
    const before = inotifyWatches();
    await watcher.start();
    await until('every file', () => done.size === total);
    expect(mostPending).toBeLessThanOrEqual(maxPending);
    // One watch: the folder's; none for its 600 files.
    expect(inotifyWatches() - before).toBe(1);
  }, 120_000);

  it('follows no symlink and takes no special file, in the watch and in a rescan, each said once; a linked root works', async () => {
    const t = tempDir('watcher-links-');
    cleanup = t.cleanup;
    const real = path.join(t.dir, 'real');
    const outside = path.join(t.dir, 'outside');
    mkdirSync(path.join(real, 'sub'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(real, 'a.csv'), 'x');
    writeFileSync(path.join(real, 'sub', 'c.csv'), 'x');
    writeFileSync(path.join(outside, 'b.csv'), 'x');
    symlinkSync('.', path.join(real, 'loop'));
    symlinkSync('..', path.join(real, 'sub', 'up'));
    symlinkSync(path.join(outside, 'b.csv'), path.join(real, 'link.csv'));
    symlinkSync(outside, path.join(real, 'elsewhere'));
    execFileSync('mkfifo', [path.join(real, 'fifo.csv')]);
    execFileSync('mkfifo', [path.join(real, 'ignored.fifo')]);
    const root = path.join(t.dir, 'input');
    symlinkSync(real, root);

    const stable: string[] = [];
    const skipped: string[] = [];
    watcher = new InputWatcher({
      dir: root,
      stableMs: 50,
      rescanIntervalMs: 0,
      classify: (f: string) => (f.endsWith('.csv') ? true : undefined),
      isDone: (f) => stable.includes(f),
      onStable: (f) => {
        stable.push(f);
      },
      onSkip: (f, why) => skipped.push(`${path.relative(root, f)}: ${why}`),
    });
    await watcher.start();
    const links = ['elsewhere', 'link.csv', 'loop', 'sub/up'];
    await until('the regular files stable and every link and FIFO said', () => stable.length >= 2 && skipped.length >= links.length + 1);
    await watcher.rescan();
    await watcher.rescan();

    expect(stable.sort()).toEqual([path.join(root, 'a.csv'), path.join(root, 'sub', 'c.csv')]);
    expect(skipped.sort()).toEqual([
      ...links.map((l) => `${l}: a symbolic link: not followed (the agent reads each file inside its folder once; point at the real folder instead)`),
      'fifo.csv: a FIFO (named pipe), not a regular file',
    ].sort());
  });

  it('sees the files written while its first scan runs, without a rescan (issue 19 item 18)', async () => {
    const t = tempDir('watcher-startup-');
    cleanup = t.cleanup;
    for (let d = 0; d < 3; d++) {
      mkdirSync(path.join(t.dir, `day${d}`));
      writeFileSync(path.join(t.dir, `day${d}`, 'old.BirdNET.results.csv'), 'x');
    }
    const stable = new Set<string>();
    const written: string[] = [];
    watcher = new InputWatcher({
      dir: t.dir,
      stableMs: 50,
      // No periodic rescan: only the watch itself can find them.
      rescanIntervalMs: 0,
      classify: (f: string) => (f.endsWith('.csv') ? true : undefined),
      isDone: (f) => {
        // Asked while the watcher walks the folder the first time: the analyzer writes now,
        // into every folder, between the listing and "running".
        if (written.length === 0) {
          for (const dir of ['.', 'day0', 'day1', 'day2']) {
            const file = path.join(t.dir, dir, 'new.BirdNET.results.csv');
            writeFileSync(file, 'x');
            written.push(file);
          }
        }
        return stable.has(f);
      },
      onStable: (f) => {
        stable.add(f);
      },
    });
    await watcher.start();
    await until('every file written during the first scan stable', () => written.length > 0 && written.every((f) => stable.has(f)), 10_000, () => `stable: ${[...stable].join(', ')}`);
    expect(stable.size).toBe(3 + written.length);
  });
  // input.ramDiskAudio keep leaves the agent's links in <input.dir>/.station-agent-spool; after a
  // switch back to copy (or a start where the RAM disk is not another file system) the daemon
  // took them as analyzerpi WAVs: each held open, up to the bound, crowding out the analyzer's own.
  // Backfill never walked hidden folders; the watch did, in the watch and in every rescan.
  it('walks no hidden folder (the near spool, a .Trash): as backfill, in the watch and in a rescan', async () => {
    const t = tempDir('watcher-hidden-');
    cleanup = t.cleanup;
    const root = path.join(t.dir, '.analyzer-out'); // input.dir itself may be hidden
    for (const d of ['.station-agent-spool/incoming', '.Trash-1000', 'day1']) mkdirSync(path.join(root, d), { recursive: true });
    const name = '2024-02-24-birdnet-16:19:37.wav';
    writeFileSync(path.join(root, '.station-agent-spool', 'incoming', name), 'x');
    writeFileSync(path.join(root, '.station-agent-spool', `1-${name}`), 'x');
    writeFileSync(path.join(root, '.Trash-1000', 'r.BirdNET.results.csv'), 'x');
    writeFileSync(path.join(root, 'day1', name), 'x');
    writeFileSync(path.join(root, 'r.BirdNET.results.csv'), 'x');

    const seen: string[] = [];
    watcher = new InputWatcher({
      dir: root,
      stableMs: 50,
      rescanIntervalMs: 0,
      classify: (f: string) => (classifyPath(f).kind === 'ignored' ? undefined : true),
      isDone: (f) => seen.includes(path.relative(root, f)),
      onAppear: (f) => void seen.push(path.relative(root, f)),
      onStable: () => undefined,
    });
    await watcher.start();
    await until('the two input files seen', () => seen.length >= 2);
    // Written while watching: the watch itself must not follow them either.
    writeFileSync(path.join(root, '.station-agent-spool', 'incoming', `x${name}`), 'x');
    writeFileSync(path.join(root, 'day1', `x${name}`), 'x');
    await until('the new input file seen', () => seen.includes(path.join('day1', `x${name}`)));
    await watcher.rescan();

    expect(seen.sort()).toEqual(['day1/' + name, 'day1/x' + name, 'r.BirdNET.results.csv']);
  });

  // chokidar listed the whole folder again on every event in it and asked every entry
  // (an lstat, and `isDone`, a query): with a day of files kept, each new recording cost
  // a stat and a query per file present (140-210 ms of CPU at 5,000 files).
  it('looks at the new file only, however many files the folder holds; a hidden .part is not looked at', async () => {
    const t = tempDir('watcher-cost-');
    cleanup = t.cleanup;
    const present = 500;
    for (let i = 0; i < present; i++) writeFileSync(path.join(t.dir, `old${i}.BirdNET.results.csv`), 'x');
    const asked: string[] = [];
    const stable: string[] = [];
    watcher = new InputWatcher({
      dir: t.dir,
      stableMs: 50,
      rescanIntervalMs: 0,
      classify: (f: string) => (f.endsWith('.csv') || f.endsWith('.part') ? true : undefined),
      isDone: (f) => {
        asked.push(path.basename(f));
        return path.basename(f).startsWith('old');
      },
      onStable: (f) => void stable.push(path.basename(f)),
    });
    await watcher.start();
    expect(asked.length).toBe(present);
    asked.length = 0;
    for (let i = 0; i < 3; i++) {
      // As the bench and many analyzers write: beside, hidden, then renamed into place.
      const part = path.join(t.dir, `.new${i}.BirdNET.results.csv.part`);
      writeFileSync(part, 'x');
      appendFileSync(part, 'y');
      renameSync(part, path.join(t.dir, `new${i}.BirdNET.results.csv`));
    }
    await until('the three new files stable', () => stable.length === 3, 10_000, () => stable.join(', '));
    expect(stable.sort()).toEqual(['new0.BirdNET.results.csv', 'new1.BirdNET.results.csv', 'new2.BirdNET.results.csv']);
    // Asked of each new file (once, or again for an event that came while it was handed over), never of a present one or a .part.
    expect(asked.length).toBeGreaterThanOrEqual(3);
    expect(asked.every((f) => f.startsWith('new'))).toBe(true);
  });

  it('takes a file written in steps once it is quiet, whole', async () => {
    const t = tempDir('watcher-steps-');
    cleanup = t.cleanup;
    const file = path.join(t.dir, 'r.BirdNET.results.csv');
    const sizes: number[] = [];
    watcher = new InputWatcher({
      dir: t.dir,
      // Long against the writer's steps, so that a busy machine does not pause it for a quiet time.
      stableMs: 1_500,
      rescanIntervalMs: 0,
      classify: (f: string) => (f.endsWith('.csv') ? true : undefined),
      isDone: () => false,
      onStable: (_f, st) => void sizes.push(st.size),
    });
    await watcher.start();
    writeFileSync(file, 'header\n');
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      appendFileSync(file, `row ${i}\n`);
    }
    await until('the file stable', () => sizes.length > 0, 20_000);
    expect(sizes).toEqual([statSync(file).size]);
  });

  it('watches folders made while it runs, a folder removed and made again, and a folder that was missing at start (after a rescan)', async () => {
    const t = tempDir('watcher-folders-');
    cleanup = t.cleanup;
    const root = path.join(t.dir, 'input');
    const stable = new Set<string>();
    watcher = new InputWatcher({
      dir: root,
      stableMs: 50,
      rescanIntervalMs: 0,
      classify: (f: string) => (f.endsWith('.csv') ? true : undefined),
      isDone: (f) => stable.has(f),
      onStable: (f) => void stable.add(path.relative(root, f)),
    });
    // input.dir not there yet (a card mounted late): the rescan that finds it watches it.
    await watcher.start();
    mkdirSync(root);
    await watcher.rescan();
    writeFileSync(path.join(root, 'a.csv'), 'x');
    await until('a file in the folder that appeared', () => stable.has('a.csv'), 10_000);
    // A day folder made while watching, with a file written at once.
    mkdirSync(path.join(root, 'day1'));
    writeFileSync(path.join(root, 'day1', 'b.csv'), 'x');
    await until('a file in a new folder', () => stable.has('day1/b.csv'), 10_000);
    // Removed and made again: the new folder is another inode, with a watch of its own.
    rmSync(path.join(root, 'day1'), { recursive: true });
    mkdirSync(path.join(root, 'day1'));
    writeFileSync(path.join(root, 'day1', 'c.csv'), 'x');
    await until('a file in the folder made again', () => stable.has('day1/c.csv'), 10_000, () => [...stable].join(', '));
  });

  // A rescan is the net for events inotify dropped. It walked every file of every folder each
  // time (31 ms of CPU per 5,000 files kept, every 5 minutes); a folder whose names did not
  // change since its last full look, and which is watched, holds nothing it has not seen.
  it('rescans look at the files of a folder only when its names changed (files left out by the bound: the first test)', async () => {
    const t = tempDir('watcher-rescan-');
    cleanup = t.cleanup;
    mkdirSync(path.join(t.dir, 'day1'));
    mkdirSync(path.join(t.dir, 'day2'));
    for (let i = 0; i < 20; i++) writeFileSync(path.join(t.dir, 'day1', `r${i}.BirdNET.results.csv`), 'x');
    for (let i = 0; i < 5; i++) writeFileSync(path.join(t.dir, 'day2', `r${i}.BirdNET.results.csv`), 'x');
    const asked: string[] = [];
    const stable: string[] = [];
    watcher = new InputWatcher({
      dir: t.dir,
      stableMs: 50,
      rescanIntervalMs: 0,
      classify: (f: string) => (f.endsWith('.csv') ? true : undefined),
      isDone: (f) => {
        asked.push(path.relative(t.dir, f));
        return stable.includes(path.relative(t.dir, f));
      },
      onStable: (f) => void stable.push(path.relative(t.dir, f)),
    });
    await watcher.start();
    await until('every file stable', () => stable.length === 25, 10_000);
    // Every file was seen by the start's walk, each folder is watched and unchanged.
    asked.length = 0;
    await watcher.rescan();
    expect(asked).toEqual([]);
    // A name made in day2 (its event handled too): day2 is looked at in full again, day1 not.
    writeFileSync(path.join(t.dir, 'day2', 'new.BirdNET.results.csv'), 'x');
    await until('the new file stable', () => stable.includes(path.join('day2', 'new.BirdNET.results.csv')), 10_000);
    asked.length = 0;
    await watcher.rescan();
    expect(asked.every((f) => f.startsWith('day2'))).toBe(true);
    expect(asked.length).toBe(6);
  });
});

