import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { queryObjects } from 'node:v8';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioFileError, FlacEncoderError } from '../../src/audio/errors.js';
import { findFlacProgram } from '../../src/audio/flac-cli.js';
import { NO_MD5 } from '../../src/audio/flac-encode-job.js';
import { createFlacEncoder } from '../../src/audio/flac-encoder.js';
import { parseStreamInfo, readFlacInfo, STREAMINFO_BYTES, STREAMINFO_OFFSET } from '../../src/audio/flac-info.js';
import { loadNativeFlac } from '../../src/audio/flac-native.js';
import { packageAddonFile } from '../../src/system/package-dir.js';
import { readWavInfo } from '../../src/audio/wav.js';
import { tempDir } from '../helpers/paths.js';
import { writeWav } from '../helpers/wav-writer.js';
import type { SampleFormat } from '../helpers/wav-writer.js';
import { decodeFlac } from './support/flac-decode.js';
import { wavDataMd5 } from './support/pcm-md5.js';
import { REAL_WAVS } from './support/real-wavs.js';

// libFLAC in-process through flac-bindings (an optional dependency built at npm ci against
// libflac-dev). .ci/run builds it, so there these tests must run; elsewhere they run where it is built.
const addon = await loadNativeFlac().catch((err: unknown) => err as Error);
const built = !(addon instanceof Error);
if (process.env.CI && !built) throw new Error(`CI must build flac-bindings (see .ci/run): ${addon.message}`);
const flacVersion = await findFlacProgram();
const ADDON_ENGINE = /^libFLAC \d+\.\d+(\.\d+)? \(flac-bindings, in-process\)$/;

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('station-agent-flac-native-');
});
afterAll(() => tmp.cleanup());

describe.skipIf(!built)("libFLAC's addon (flac-bindings)", () => {
  // .ci/run compiles the addon from patches/' sources (scripts/patch-dependencies.mjs).
  it.skipIf(!process.env.CI && built && !addon.md5Switch)('leaves the MD5 unset with md5: false (patches/ switch), the same frames otherwise', async () => {
    expect(built && addon.md5Switch).toBe(true);
    const [wav] = REAL_WAVS;
    const encoder = createFlacEncoder({ engine: 'auto', compressionLevel: 0 });
    try {
      const withMd5 = await encoder.encodeToMemory(wav);
      const without = await encoder.encodeToMemory(wav, { md5: false });
      expect(withMd5.md5).toBe(await wavDataMd5(wav));
      expect(without.md5).toBe(NO_MD5);
      const stream = parseStreamInfo(without.data.subarray(STREAMINFO_OFFSET, STREAMINFO_OFFSET + STREAMINFO_BYTES));
      expect(stream.md5).toBe(NO_MD5);
      // Nothing else changes: past STREAMINFO (whose MD5 alone differs), byte for byte the same.
      const audioStart = STREAMINFO_OFFSET + STREAMINFO_BYTES;
      expect(Buffer.compare(without.data.subarray(audioStart), withMd5.data.subarray(audioStart))).toBe(0);
      const asFile = path.join(tmp.dir, 'no-md5.flac');
      writeFileSync(asFile, without.data);
      const decoded = await decodeFlac(asFile);
      expect(decoded.errors).toEqual([]);
      expect(decoded.totalSamples).toBe(stream.totalSamples);
    } finally {
      await encoder.close();
    }
  });

  it.each(REAL_WAVS)('is what auto picks, and encodes %s into memory with a finished STREAMINFO', async (wav) => {
    const encoder = createFlacEncoder({ engine: 'auto' });
    try {
      const info = await readWavInfo(wav);
      const result = await encoder.encodeToMemory(wav);
      expect(result.engine).toMatch(ADDON_ENGINE);
      const frames = info.dataBytes / info.blockAlign;
      // The STREAMINFO in the bytes the service gets, not only what the encoder says.
      expect(result.data.toString('latin1', 0, 4)).toBe('fLaC');
      const stream = parseStreamInfo(result.data.subarray(STREAMINFO_OFFSET, STREAMINFO_OFFSET + STREAMINFO_BYTES));
      expect(stream).toMatchObject({ sampleRate: info.sampleRate, channels: info.channels, bitsPerSample: 16, totalSamples: frames });
      expect(stream.md5).toBe(await wavDataMd5(wav));
      expect(stream.minFrameSize).toBeGreaterThan(0);
      expect(stream.maxFrameSize).toBeGreaterThanOrEqual(stream.minFrameSize);
      expect(result).toMatchObject({ totalSamples: frames, sampleRate: info.sampleRate, md5: stream.md5, bytes: result.data.length });

      // Decoded by another libFLAC build (libflacjs): the same samples, the MD5 checked.
      const asFile = path.join(tmp.dir, `${path.basename(wav, '.wav')}.flac`);
      writeFileSync(asFile, result.data);
      const decoded = await decodeFlac(asFile);
      expect(decoded.errors).toEqual([]);
      expect(decoded.md5Ok).toBe(true);
      expect(decoded.totalSamples).toBe(frames);
    } finally {
      await encoder.close();
    }
  });

  it.each<[SampleFormat, number, number]>([
    ['pcm24', 24, 2],
    ['pcm32', 24, 2],
    ['float32', 24, 2],
    ['pcm8', 8, 2],
    // Mono goes through libFLAC's process(), not process_interleaved() (flac-native.ts).
    ['pcm24', 24, 1],
  ])('takes a %s WAV (which the flac program leaves to libflacjs) to the same audio as libflacjs (%i bits, %i channels)', async (format, bits, channels) => {
    const wav = path.join(tmp.dir, `${format}-${channels}.wav`);
    writeWav(wav, { format, channels, frames: 9000 });
    const native = createFlacEncoder({ engine: 'native' });
    const wasm = createFlacEncoder({ engine: 'wasm' });
    try {
      const a = await native.encode(wav, path.join(tmp.dir, `${format}-${channels}-native.flac`));
      const b = await wasm.encode(wav, path.join(tmp.dir, `${format}-${channels}-wasm.flac`));
      expect(a.engine).toMatch(ADDON_ENGINE);
      expect(a).toMatchObject({ bitsPerSample: bits, totalSamples: 9000, channels, md5: b.md5 });
      const [da, db] = await Promise.all([decodeFlac(path.join(tmp.dir, `${format}-${channels}-native.flac`)), decodeFlac(path.join(tmp.dir, `${format}-${channels}-wasm.flac`))]);
      expect(da.md5Ok).toBe(true);
      expect(Buffer.from(da.samples.buffer).equals(Buffer.from(db.samples.buffer))).toBe(true);
      // A file job: written .part, then renamed, with the final STREAMINFO.
      expect(existsSync(path.join(tmp.dir, `${format}-${channels}-native.flac.part`))).toBe(false);
      expect((await readFlacInfo(path.join(tmp.dir, `${format}-${channels}-native.flac`))).md5).toBe(a.md5);
    } finally {
      await Promise.all([native.close(), wasm.close()]);
    }
  });

  it('takes odd chunk layouts (fmt after data, a LIST chunk between) and refuses a WAV that is not one, naming it', async () => {
    const odd = path.join(tmp.dir, 'odd.wav');
    writeWav(odd, { fmtLast: true, frames: 5000 });
    const bad = path.join(tmp.dir, 'bad.wav');
    writeFileSync(bad, 'RIFF but not really');
    const encoder = createFlacEncoder({ engine: 'auto' });
    try {
      expect(await encoder.encodeToMemory(odd)).toMatchObject({ engine: expect.stringMatching(ADDON_ENGINE), totalSamples: 5000 });
      const job = encoder.encodeToMemory(bad);
      await expect(job).rejects.toBeInstanceOf(AudioFileError);
      await expect(job).rejects.toThrow(bad);
    } finally {
      await encoder.close();
    }
  });

  it("keeps no finished encoder alive: libFLAC's callbacks reach the encode's job only until it ends (issue 35's soak)", async () => {
    // The addon's encoder class, counted live after a full collection (v8.queryObjects).
    const { Encoder } = createRequire(import.meta.url)(packageAddonFile('flac-bindings', 'flac-bindings.node')) as { Encoder: new () => object };
    const wav = path.join(tmp.dir, 'many.wav');
    writeWav(wav, { frames: 48_000 });
    const encoder = createFlacEncoder({ engine: 'native' });
    try {
      // The first encodes load what stays (the addon, the builder kept for reuse).
      for (let i = 0; i < 30; i++) await encoder.encodeToMemory(wav);
      const before = queryObjects(Encoder, { format: 'count' });
      for (let i = 0; i < 30; i++) await encoder.encodeToMemory(wav);
      // Before the fix, each encode's StreamEncoder stayed (a cycle through the addon's strong
      // references to its callbacks): 30 more here, one per recording in the daemon.
      expect(queryObjects(Encoder, { format: 'count' }) - before).toBeLessThanOrEqual(1);
    } finally {
      await encoder.close();
    }
  });

  it('close({ force: true }) stops a running job between two chunks and leaves no .part', async () => {
    const wav = path.join(tmp.dir, 'long.wav');
    writeWav(wav, { frames: 160_000 });
    const dest = path.join(tmp.dir, 'long.flac');
    const encoder = createFlacEncoder({ engine: 'native' });
    const job = encoder.encode(wav, dest, { chunkBytes: 1024 });
    job.catch(() => undefined);
    await encoder.close({ force: true });
    await expect(job).rejects.toBeInstanceOf(FlacEncoderError);
    await expect(job).rejects.toThrow(/closed while encoding .*long\.wav/);
    expect(existsSync(`${dest}.part`)).toBe(false);
    expect(existsSync(dest)).toBe(false);
  });

  it('lets the event loop turn during a long in-memory encode (synchronous reads), and a forced close stops the job at that turn', async () => {
    // 3 MB of WAV: more than the MiB the job encodes between two turns of the event loop.
    const wav = path.join(tmp.dir, 'long-memory.wav');
    writeWav(wav, { frames: 1_500_000 });
    const encoder = createFlacEncoder({ engine: 'native' });
    // The addon loaded first: from here on the job reads and encodes without waiting on
    // any I/O, so only its own yield lets a setImmediate callback run before it ends.
    await encoder.encodeToMemory(REAL_WAVS[0]);
    const job = encoder.encodeToMemory(wav);
    job.catch(() => undefined);
    let closing: Promise<void> | undefined;
    setImmediate(() => {
      closing = encoder.close({ force: true });
    });
    await expect(job).rejects.toThrow(/closed while encoding .*long-memory\.wav/);
    expect(closing).toBeDefined();
    await closing;
  });
});

describe('without the addon', () => {
  it('loadNativeFlac names the module and why it could not be loaded', async () => {
    const missing = path.join(tmp.dir, 'no-such-addon.js');
    await expect(loadNativeFlac(missing)).rejects.toThrow(new RegExp(`libFLAC's addon \\(${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) could not be loaded`));
    // A module that loads but is not libFLAC's API.
    const other = path.join(tmp.dir, 'not-the-addon.mjs');
    writeFileSync(other, 'export const something = 1;\n');
    await expect(loadNativeFlac(other)).rejects.toThrow(/could not be loaded: it has no EncoderBuilder/);
  });

  it.skipIf(!flacVersion)('auto falls back to the flac program', async () => {
    const wav = path.join(tmp.dir, 'fallback.wav');
    writeWav(wav, { frames: 4000 });
    const encoder = createFlacEncoder({ engine: 'auto', flacAddon: path.join(tmp.dir, 'no-such-addon.js') });
    try {
      expect((await encoder.encode(wav, path.join(tmp.dir, 'fallback.flac'))).engine).toBe(`${flacVersion} (flac program)`);
    } finally {
      await encoder.close();
    }
  });

  it('native without the addon or the program fails each job, naming both', async () => {
    const wav = path.join(tmp.dir, 'neither.wav');
    writeWav(wav, { frames: 1000 });
    const encoder = createFlacEncoder({ engine: 'native', flacAddon: path.join(tmp.dir, 'no-such-addon.js'), flacProgram: path.join(tmp.dir, 'no-such-flac') });
    try {
      const job = encoder.encode(wav, path.join(tmp.dir, 'neither.flac'));
      await expect(job).rejects.toBeInstanceOf(FlacEncoderError);
      await expect(job).rejects.toThrow(/"native" but neither libFLAC's addon \(.*could not be loaded.*\) nor the .*no-such-flac program \(not on PATH\)/);
    } finally {
      await encoder.close();
    }
  });
});
