import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NEAR_SPOOL_NAME, Spool } from '../../src/ingest/spool.js';
import { openRegularFile } from '../../src/system/regular-file.js';
import { tempDir } from '../helpers/paths.js';

/**
 * The analyzerpi analyzer deletes each WAV seconds after analysing it: when it does so
 * between the agent's open and its hard link, the audio lives on in the open descriptor
 * and must reach the spool from there (it had been queued without audio).
 */
let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('station-agent-spool-')));
afterEach(() => cleanup());

describe('Spool', () => {
  it('takes a WAV deleted between its open and its link from the open file', async () => {
    const spool = new Spool(path.join(dir, 'data'));
    await spool.init();
    const source = path.join(dir, '2024-05-01-birdnet-06:00:00.wav');
    const bytes = Buffer.from('RIFF....WAVEfmt audio bytes of a recording');
    writeFileSync(source, bytes);
    const handle = await openRegularFile(source);
    try {
      rmSync(source); // the analyzer cleans up
      const dest = spool.pathFor('r1.wav');
      expect(await spool.tryLink(source, dest, handle)).toBe(false);
      expect(await spool.take(source, 'r1.wav', handle)).toEqual({ how: 'copy', path: dest });
      expect(readFileSync(dest)).toEqual(bytes);
    } finally {
      await handle.close();
    }
  });

  it('links a WAV that is still there', async () => {
    const spool = new Spool(path.join(dir, 'data'));
    await spool.init();
    const source = path.join(dir, 'a.wav');
    writeFileSync(source, 'audio');
    const handle = await openRegularFile(source);
    try {
      expect(await spool.take(source, 'a.wav', handle)).toEqual({ how: 'link', path: spool.pathFor('a.wav') });
    } finally {
      await handle.close();
    }
  });

  it('replaces a name left in the spool (a crash between a link and its commit) by the file it opened', async () => {
    const spool = new Spool(path.join(dir, 'data'));
    await spool.init();
    const dest = spool.pathFor('a.wav');
    writeFileSync(dest, 'left by a crash');
    const source = path.join(dir, 'a.wav');
    writeFileSync(source, 'audio');
    const handle = await openRegularFile(source);
    try {
      expect(await spool.take(source, 'a.wav', handle)).toEqual({ how: 'link', path: dest });
      expect(statSync(dest).ino).toBe(statSync(source).ino);
    } finally {
      await handle.close();
    }
  });

  it('measures the free space of its card', async () => {
    const spool = new Spool(path.join(dir, 'data'));
    await spool.init();
    const free = spool.freeBytes();
    const st = statfsSync(path.join(dir, 'data'));
    // The same file system, measured a moment apart by one call each.
    expect(free).toBeGreaterThan(0);
    expect(Math.abs(free - st.bavail * st.bsize)).toBeLessThan(64 * 1024 * 1024);
  });

  describe('input.ramDiskAudio keep: the near spool on the analyzer\'s file system', () => {
    const shm = '/dev/shm';
    const otherFs = existsSync(shm) && statSync(shm).dev !== statSync(process.env.TMPDIR ?? '/tmp').dev;
    let input: string;
    beforeEach(() => {
      if (otherFs) input = mkdtempSync(path.join(shm, 'station-agent-near-'));
    });
    afterEach(() => {
      if (otherFs) rmSync(input, { recursive: true, force: true });
    });

    it.skipIf(!otherFs)('links the audio beside it on the RAM disk: nothing written to the card, and its WAVs are never input', async () => {
      const spool = new Spool(path.join(dir, 'data'), input);
      expect(await spool.init()).toBeNull();
      expect(spool.nearDir).toBe(path.join(input, NEAR_SPOOL_NAME));
      expect(spool.incomingDir).toBe(path.join(input, NEAR_SPOOL_NAME, 'incoming'));
      expect(statSync(spool.nearDir!).mode & 0o777).toBe(0o700);
      const source = path.join(input, 'a.wav');
      writeFileSync(source, 'audio');
      const handle = await openRegularFile(source);
      try {
        const taken = await spool.take(source, 'a.wav', handle);
        expect(taken).toEqual({ how: 'link', path: path.join(spool.nearDir!, 'a.wav') });
        expect(statSync(taken.path).ino).toBe(statSync(source).ino);
        expect(spool.isNear(taken.path)).toBe(true);
        expect(spool.pathFor('a.flac', taken.path)).toBe(path.join(spool.nearDir!, 'a.flac'));
      } finally {
        await handle.close();
      }
      expect(readdirSync(spool.dir)).toEqual(['incoming']);
      expect(spool.incomingDirs).toEqual([spool.incomingDir, path.join(spool.dir, 'incoming')]);
    });

    it.skipIf(!otherFs)('copies onto the card while the RAM disk is less than half free, so the analyzer keeps room', async () => {
      // statfs is the edge: a RAM disk more than half full cannot be made in a test without filling /dev/shm.
      class FullNear extends Spool {
        override nearHasRoom(): Promise<boolean> {
          return Promise.resolve(false);
        }
      }
      const spool = new FullNear(path.join(dir, 'data'), input);
      await spool.init();
      const source = path.join(input, 'b.wav');
      writeFileSync(source, 'audio');
      const handle = await openRegularFile(source);
      try {
        expect(await spool.take(source, 'b.wav', handle)).toEqual({ how: 'copy', path: spool.pathFor('b.wav') });
      } finally {
        await handle.close();
      }
      expect(readFileSync(spool.pathFor('b.wav'), 'utf8')).toBe('audio');
    });

    it('is not used where input.dir is on the card\'s file system: the spool links there anyway', async () => {
      const here = path.join(dir, 'input');
      mkdirSync(here);
      const spool = new Spool(path.join(dir, 'data'), here);
      expect(await spool.init()).toMatch(/is on the file system of dataDir; its audio stays on that file system, linked, not copied/);
      expect(spool.nearDir).toBeNull();
      expect(spool.incomingDir).toBe(path.join(dir, 'data', 'spool', 'incoming'));
    });
  });
});
