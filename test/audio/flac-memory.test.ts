import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioFileError } from '../../src/audio/errors.js';
import { findFlacProgram, findScratchDir, SCRATCH_PREFIX } from '../../src/audio/flac-cli.js';
import { createFlacEncoder } from '../../src/audio/flac-encoder.js';
import { loadNativeFlac } from '../../src/audio/flac-native.js';
import { readFlacInfo } from '../../src/audio/flac-info.js';
import { tempDir } from '../helpers/paths.js';
import { writeWav } from '../helpers/wav-writer.js';
import { decodeFlac } from './support/flac-decode.js';
import { REAL_WAVS } from './support/real-wavs.js';

// Encoding into memory (the uploader's path, issue 22): the service must see the same
// FLAC as from a file, and nothing may be written anywhere but RAM.
const flacVersion = await findFlacProgram();
const shm = existsSync('/dev/shm') ? await findScratchDir('/dev/shm') : undefined;
const addon = await loadNativeFlac().catch(() => undefined);

let tmp: ReturnType<typeof tempDir>;
// A RAM folder of the test's own (collected before the tests are: the engines depend on it).
const scratch = shm ? mkdtempSync(path.join(shm, 'station-agent-test-')) : undefined;
beforeAll(() => {
  tmp = tempDir('station-agent-flac-memory-');
});
afterAll(() => {
  tmp.cleanup();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const engines = [
  { name: 'libflacjs', options: { engine: 'wasm' as const } },
  ...(addon ? [{ name: "libFLAC's addon", options: { engine: 'native' as const } }] : []),
  ...(flacVersion && scratch ? [{ name: 'the flac program', options: { engine: 'program' as const, scratchDir: scratch } }] : []),
];

describe.each(engines)('encodeToMemory with $name', ({ options }) => {
  it.each(REAL_WAVS)('gives %s the STREAMINFO and audio of a file encode, and writes nothing', async (wav) => {
    const encoder = createFlacEncoder(options);
    const name = path.basename(wav, '.wav');
    try {
      const before = scratch ? readdirSync(scratch) : [];
      const memory = await encoder.encodeToMemory(wav);
      const file = path.join(tmp.dir, `${name}-${options.engine}.flac`);
      const fromFile = await encoder.encode(wav, file);
      expect(memory.data.length).toBe(memory.bytes);
      expect(memory.engine).toBe(fromFile.engine);
      // The same encoder, the same bytes: the memory and file sinks gather libFLAC's frames differently.
      expect(Buffer.compare(memory.data, readFileSync(file))).toBe(0);
      if (scratch) expect(readdirSync(scratch)).toEqual(before);

      const asFile = path.join(tmp.dir, `${name}-${options.engine}-memory.flac`);
      writeFileSync(asFile, memory.data);
      const [m, f] = await Promise.all([readFlacInfo(asFile), readFlacInfo(file)]);
      // What the service reads: a complete STREAMINFO, the same as the file's.
      const view = ({ sampleRate, channels, bitsPerSample, totalSamples, md5, minBlockSize, maxBlockSize }: typeof m) => ({
        sampleRate,
        channels,
        bitsPerSample,
        totalSamples,
        md5,
        minBlockSize,
        maxBlockSize,
      });
      expect(view(m)).toEqual(view(f));
      expect(m.md5).not.toBe('0'.repeat(32));
      expect(m.minFrameSize).toBeGreaterThan(0);
      expect(m.maxFrameSize).toBeGreaterThanOrEqual(m.minFrameSize);
      expect(m.totalSamples).toBe(memory.totalSamples);

      const [dm, df] = await Promise.all([decodeFlac(asFile), decodeFlac(file)]);
      expect(dm.errors).toEqual([]);
      expect(dm.md5Ok).toBe(true);
      expect(Buffer.from(dm.samples.buffer).equals(Buffer.from(df.samples.buffer))).toBe(true);
    } finally {
      await encoder.close();
    }
  });

  it('refuses a file that is not a WAV with AudioFileError naming it', async () => {
    const encoder = createFlacEncoder(options);
    const bad = path.join(tmp.dir, `bad-${options.engine}.wav`);
    writeFileSync(bad, 'not audio at all, just text');
    try {
      const job = encoder.encodeToMemory(bad);
      await expect(job).rejects.toBeInstanceOf(AudioFileError);
      await expect(job).rejects.toThrow(bad);
    } finally {
      await encoder.close();
    }
  });
});

describe('the in-memory FLAC buffer, kept between recordings', () => {
  it('gives the bytes of a file encode for a FLAC larger than the buffer kept, and for the recordings before and after it', async () => {
    // White noise does not compress: its FLAC (about 3 MB) outgrows the 2 MiB buffer the
    // encoder keeps, and the small recordings around it start from the buffer kept.
    let state = 12345;
    const noise = Array.from({ length: 1_500_000 }, () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 16) - 32768;
    });
    const big = path.join(tmp.dir, 'noise.wav');
    writeWav(big, { samples: noise });
    const small = path.join(tmp.dir, 'small.wav');
    writeWav(small, { frames: 20_000 });
    const encoder = createFlacEncoder(addon ? { engine: 'native' } : { engine: 'wasm' });
    try {
      for (const [i, wav] of [small, big, small, big].entries()) {
        const memory = await encoder.encodeToMemory(wav);
        const file = path.join(tmp.dir, `kept-${i}.flac`);
        await encoder.encode(wav, file);
        expect(Buffer.compare(memory.data, readFileSync(file))).toBe(0);
        if (wav === big) expect(memory.bytes).toBeGreaterThan(2 * 1024 * 1024);
      }
    } finally {
      await encoder.close();
    }
  });
});

describe.skipIf(!flacVersion || !scratch)('the flac program without a RAM folder', () => {
  it('leaves memory jobs to libflacjs, which writes nothing either', async () => {
    const dir = mkdtempSync(path.join(tmp.dir, 'no-scratch-'));
    const wav = path.join(dir, 'no-scratch.wav');
    writeWav(wav, { frames: 8000 });
    const encoder = createFlacEncoder({ engine: 'program', scratchDir: false });
    try {
      const memory = await encoder.encodeToMemory(wav);
      expect(memory.engine).toMatch(/^libflacjs /);
      expect(memory.totalSamples).toBe(8000);
      expect(readdirSync(dir)).toEqual(['no-scratch.wav']);
    } finally {
      await encoder.close();
    }
  });

  it('findScratchDir refuses a folder on a disk and clears what a killed agent left in a RAM one', async () => {
    // The repository's folder is on a disk (a RAM folder would be the wrong place for a checkout).
    expect(await findScratchDir(process.cwd())).toBeUndefined();
    const dead = path.join(scratch!, `${SCRATCH_PREFIX}2147483646-1.flac`);
    const alive = path.join(scratch!, `${SCRATCH_PREFIX}${process.pid}-1.flac`);
    writeFileSync(dead, 'left by a killed agent');
    writeFileSync(alive, 'being written right now');
    expect(await findScratchDir(scratch)).toBe(scratch);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(alive)).toBe(true);
    rmSync(alive);
  });
});
