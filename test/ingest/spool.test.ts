import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Spool } from '../../src/ingest/spool.js';
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
      expect(await spool.take(source, dest, handle)).toBe('copy');
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
      expect(await spool.take(source, spool.pathFor('a.wav'), handle)).toBe('link');
    } finally {
      await handle.close();
    }
  });
});
