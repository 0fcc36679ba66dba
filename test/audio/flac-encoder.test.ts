import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioFileError, FlacEncoderError } from '../../src/audio/errors.js';
import { FLAC_BLOCK_SIZE } from '../../src/audio/flac-encode-job.js';
import { createFlacEncoder } from '../../src/audio/flac-encoder.js';
import type { FlacEncoder } from '../../src/audio/flac-encoder.js';
import { readFlacInfo } from '../../src/audio/flac-info.js';
import { readWavInfo } from '../../src/audio/wav.js';
import { realFixture, tempDir } from '../helpers/paths.js';
import { bitsOf, buildRiff, dataChunk, fmtChunk, isFloat, writeWav } from '../helpers/wav-writer.js';
import type { SampleFormat, WavSpec } from '../helpers/wav-writer.js';
import { decodeFlac } from './support/flac-decode.js';
import { samplesMd5, wavDataMd5 } from './support/pcm-md5.js';

let tmp: ReturnType<typeof tempDir>;
let encoder: FlacEncoder;
beforeAll(() => {
  tmp = tempDir('station-agent-flac-');
  encoder = createFlacEncoder();
});
afterAll(async () => {
  await encoder.close();
  tmp.cleanup();
});

let counter = 0;
function paths(name = `t${++counter}`) {
  return { wav: path.join(tmp.dir, `${name}.wav`), flac: path.join(tmp.dir, 'spool', `${name}.flac`) };
}

/** What FLAC must hold for a WAV sample, as pcm.ts documents the conversion. */
function expectedSample(value: number, format: SampleFormat): number {
  if (isFloat(format)) {
    const x = format === 'float32' ? Math.fround(value) : value;
    return Math.max(-8388608, Math.min(8388607, Math.round(x * 8388608)));
  }
  return format === 'pcm32' ? value >> 8 : value;
}

function countMismatches(actual: Int32Array, expected: ArrayLike<number>): number {
  let bad = Math.abs(actual.length - expected.length);
  for (let i = 0; i < Math.min(actual.length, expected.length); i++) if (actual[i] !== expected[i]) bad++;
  return bad;
}

function leftovers(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.part')) : [];
}

describe('encode -> decode is bit-exact', () => {
  const cases: Array<{ name: string; spec: WavSpec; flacBits: number }> = [
    { name: '16-bit mono', spec: { format: 'pcm16', channels: 1, sampleRate: 32000, frames: 40000 }, flacBits: 16 },
    { name: '16-bit stereo', spec: { format: 'pcm16', channels: 2, sampleRate: 48000, frames: 30000 }, flacBits: 16 },
    { name: '24-bit stereo EXTENSIBLE', spec: { format: 'pcm24', channels: 2, sampleRate: 96000, frames: 20000, extensible: true }, flacBits: 24 },
    { name: '8-bit mono', spec: { format: 'pcm8', channels: 1, sampleRate: 8000, frames: 9001 }, flacBits: 8 },
    { name: '32-bit integer (-> 24-bit)', spec: { format: 'pcm32', channels: 1, sampleRate: 48000, frames: 12000 }, flacBits: 24 },
    { name: '32-bit float with clipping (-> 24-bit)', spec: { format: 'float32', channels: 2, sampleRate: 44100, frames: 12000, overdrive: true }, flacBits: 24 },
    { name: '64-bit float (-> 24-bit)', spec: { format: 'float64', channels: 1, sampleRate: 22050, frames: 5000 }, flacBits: 24 },
  ];

  for (const { name, spec, flacBits } of cases) {
    it(name, async () => {
      const p = paths();
      const built = writeWav(p.wav, spec);
      const format = spec.format!;
      const expected = built.samples.map((v) => expectedSample(v, format));

      const result = await encoder.encode(p.wav, p.flac);
      expect(result).toMatchObject({
        sampleRate: spec.sampleRate,
        channels: spec.channels,
        bitsPerSample: flacBits,
        totalSamples: built.frames,
      });
      expect(result.durationSec).toBeCloseTo(built.frames / spec.sampleRate!, 9);

      const info = await readFlacInfo(p.flac);
      expect(info).toMatchObject({
        sampleRate: spec.sampleRate,
        channels: spec.channels,
        bitsPerSample: flacBits,
        totalSamples: built.frames,
        minBlockSize: FLAC_BLOCK_SIZE,
        maxBlockSize: FLAC_BLOCK_SIZE,
        bytes: result.bytes,
      });
      expect(info.minFrameSize).toBeGreaterThan(0);
      expect(info.maxFrameSize).toBeGreaterThanOrEqual(info.minFrameSize);
      expect(info.md5).toBe(samplesMd5(expected, flacBits));
      expect(result.md5).toBe(info.md5);

      const decoded = await decodeFlac(p.flac);
      expect(decoded.errors).toEqual([]);
      expect(decoded.md5Ok).toBe(true);
      expect(decoded).toMatchObject({ sampleRate: spec.sampleRate, channels: spec.channels, bitsPerSample: flacBits });
      expect(countMismatches(decoded.samples, expected)).toBe(0);
      if (bitsOf(format) <= 24 && !isFloat(format)) expect(flacBits).toBe(bitsOf(format));
      expect(leftovers(path.dirname(p.flac))).toEqual([]);
    });
  }

  it('the decoder check is live: a corrupted FLAC does not pass', async () => {
    const p = paths();
    writeWav(p.wav, { frames: 40000 });
    await encoder.encode(p.wav, p.flac);
    const bytes = readFileSync(p.flac);
    for (let i = 2000; i < 2064; i++) bytes[i] = bytes[i] ^ 0x5a;
    const corrupt = path.join(tmp.dir, 'corrupt.flac');
    writeFileSync(corrupt, bytes);
    const decoded = await decodeFlac(corrupt);
    expect(decoded.md5Ok && decoded.errors.length === 0).toBe(false);
  });
});

describe('real recordings', () => {
  const files = [
    'opensoundscape_8b582152/metadata.wav',
    'birdnet-pi_88985a3a/Pica pica_30s.wav',
    'birdnet-analyzer_ea464544_2022-03-02/soundscape.wav',
  ];
  for (const rel of files) {
    it(`${rel}: STREAMINFO MD5 is the MD5 of the WAV's PCM, and decoding gives it back`, async () => {
      const src = realFixture(rel);
      const wav = await readWavInfo(src);
      const pcm = readFileSync(src).subarray(wav.dataOffset, wav.dataOffset + wav.dataBytes);
      const dest = path.join(tmp.dir, 'real', `${path.basename(rel, '.wav')}.flac`);
      const result = await encoder.encode(src, dest);
      expect(result).toMatchObject({ sampleRate: wav.sampleRate, channels: 1, bitsPerSample: 16, totalSamples: wav.dataBytes / 2 });
      const info = await readFlacInfo(dest);
      expect(info.md5).toBe(await wavDataMd5(src));
      const decoded = await decodeFlac(dest);
      expect(decoded.md5Ok).toBe(true);
      const original = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength));
      expect(countMismatches(decoded.samples, original)).toBe(0);
      expect(result.bytes).toBeLessThan(wav.dataBytes);
    });
  }
});

describe('large files stream', () => {
  it('encodes 60 s of 48 kHz stereo in 16 KiB reads, bit-exact, with STREAMINFO filled', async () => {
    const p = paths('hour-like');
    const built = writeWav(p.wav, { format: 'pcm16', channels: 2, sampleRate: 48000, frames: 48000 * 60 });
    const result = await encoder.encode(p.wav, p.flac, { chunkBytes: 16 * 1024 });
    expect(result.totalSamples).toBe(48000 * 60);
    const info = await readFlacInfo(p.flac);
    expect(info.totalSamples).toBe(48000 * 60);
    expect(info.md5).toBe(samplesMd5(built.samples, 16));
    const decoded = await decodeFlac(p.flac);
    expect(decoded.md5Ok).toBe(true);
    expect(countMismatches(decoded.samples, built.samples)).toBe(0);
  });
});

describe('crash safety and invalid input', () => {
  it('never leaves a .part file and writes nothing under the final name for invalid input', async () => {
    const p = paths();
    writeFileSync(p.wav, 'ID3\x04 this is an mp3');
    const err: unknown = await encoder.encode(p.wav, p.flac).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AudioFileError);
    expect((err as AudioFileError).message).toContain(p.wav);
    expect((err as AudioFileError).reason).toBe('not-riff');
    expect(existsSync(p.flac)).toBe(false);
    expect(leftovers(path.dirname(p.flac))).toEqual([]);
  });

  it('empty and truncated WAVs are AudioFileErrors naming the file', async () => {
    const empty = paths();
    writeFileSync(empty.wav, '');
    await expect(encoder.encode(empty.wav, empty.flac)).rejects.toMatchObject({ code: 'ERR_AUDIO_INVALID', reason: 'empty', file: empty.wav });
    const cut = paths();
    writeWav(cut.wav, { truncateTo: 30 });
    await expect(encoder.encode(cut.wav, cut.flac)).rejects.toMatchObject({ code: 'ERR_AUDIO_INVALID', reason: 'truncated', file: cut.wav });
  });

  it('an incomplete WAV is refused by default and encoded (what is there) with allowIncomplete', async () => {
    const p = paths();
    const built = writeWav(p.wav, { frames: 10000, declaredDataBytes: 0 });
    await expect(encoder.encode(p.wav, p.flac)).rejects.toMatchObject({ reason: 'incomplete', file: p.wav });
    expect(existsSync(p.flac)).toBe(false);
    const result = await encoder.encode(p.wav, p.flac, { allowIncomplete: true });
    expect(result.totalSamples).toBe(10000);
    expect(countMismatches((await decodeFlac(p.flac)).samples, built.samples)).toBe(0);
  });

  it('a WAV with a data chunk but not one whole sample frame is refused', async () => {
    const p = paths();
    writeFileSync(p.wav, buildRiff([fmtChunk({ format: 'pcm16', channels: 2, sampleRate: 8000 }), dataChunk(Buffer.alloc(3))]));
    await expect(encoder.encode(p.wav, p.flac)).rejects.toMatchObject({ reason: 'no-samples', file: p.wav });
    // An empty data chunk (size 0) looks like a recorder that has not finished yet.
    writeWav(p.wav, { samples: [] });
    await expect(encoder.encode(p.wav, p.flac)).rejects.toMatchObject({ reason: 'incomplete' });
    await expect(encoder.encode(p.wav, p.flac, { allowIncomplete: true })).rejects.toMatchObject({ reason: 'no-samples' });
  });

  it('replaces a stale .part left by a crash and overwrites nothing else', async () => {
    const p = paths();
    writeWav(p.wav, { frames: 3000 });
    await encoder.encode(p.wav, p.flac); // creates the spool folder
    writeFileSync(`${p.flac}.part`, 'half a flac from before the crash');
    await encoder.encode(p.wav, p.flac);
    expect(existsSync(`${p.flac}.part`)).toBe(false);
    expect((await readFlacInfo(p.flac)).totalSamples).toBe(3000);
  });

  it('a missing source rejects with ENOENT', async () => {
    const p = paths();
    await expect(encoder.encode(p.wav, p.flac)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('the encoder', () => {
  it('queues concurrent jobs and runs them all, each result for its own file', async () => {
    const jobs = [1000, 2000, 3000, 4000].map((frames) => {
      const p = paths();
      writeWav(p.wav, { frames });
      return { ...p, frames };
    });
    const results = await Promise.all(jobs.map((j) => encoder.encode(j.wav, j.flac)));
    expect(results.map((r) => r.totalSamples)).toEqual([1000, 2000, 3000, 4000]);
    for (const j of jobs) expect((await readFlacInfo(j.flac)).totalSamples).toBe(j.frames);
  });

  it('one failing job does not stop the queue', async () => {
    const bad = paths();
    writeFileSync(bad.wav, 'not a wav at all');
    const good = paths();
    writeWav(good.wav, { frames: 500 });
    const [first, second] = await Promise.allSettled([encoder.encode(bad.wav, bad.flac), encoder.encode(good.wav, good.flac)]);
    expect(first.status).toBe('rejected');
    expect(second).toMatchObject({ status: 'fulfilled', value: { totalSamples: 500 } });
  });

  it('compression level is honoured: level 8 is no larger than level 0', async () => {
    const p = paths();
    writeWav(p.wav, { format: 'pcm16', channels: 2, frames: 48000 });
    const fast = await encoder.encode(p.wav, `${p.flac}-0.flac`, { compressionLevel: 0 });
    const best = await encoder.encode(p.wav, `${p.flac}-8.flac`, { compressionLevel: 8 });
    expect(best.bytes).toBeLessThan(fast.bytes);
    expect(best.md5).toBe(fast.md5);
  });

  it('close() rejects queued jobs, finishes the running one, and refuses new ones', async () => {
    const own = createFlacEncoder();
    const jobs = [1, 2, 3].map(() => {
      const p = paths();
      writeWav(p.wav, { frames: 20000 });
      return p;
    });
    const running = own.encode(jobs[0].wav, jobs[0].flac);
    const queued = [own.encode(jobs[1].wav, jobs[1].flac), own.encode(jobs[2].wav, jobs[2].flac)].map((q) =>
      q.then(
        () => 'resolved',
        (e: unknown) => e,
      ),
    );
    await own.close();
    await expect(running).resolves.toMatchObject({ totalSamples: 20000 });
    for (const q of queued) expect(await q).toBeInstanceOf(FlacEncoderError);
    expect(existsSync(jobs[1].flac)).toBe(false);
    await expect(own.encode(jobs[1].wav, jobs[1].flac)).rejects.toMatchObject({ code: 'ERR_FLAC_ENCODER' });
  });

  it("thread: 'worker' without a compiled worker says how to get one", async () => {
    const own = createFlacEncoder({ thread: 'worker' });
    const p = paths();
    writeWav(p.wav);
    await expect(own.encode(p.wav, p.flac)).rejects.toThrow(/flac-worker\.js does not exist \(run the build/);
    await own.close();
  });
});

describe("engine: 'auto'", () => {
  it('falls back to libflacjs when neither libFLAC\'s addon nor the flac program is installed', async () => {
    const own = createFlacEncoder({ engine: 'auto', flacAddon: path.join(tmp.dir, 'no-such-addon.js'), flacProgram: path.join(tmp.dir, 'no-such-flac') });
    const p = paths();
    writeWav(p.wav, { frames: 1000 });
    expect((await own.encode(p.wav, p.flac)).engine).toMatch(/^libflacjs /);
    await own.close();
  });

  it('runs the program with the level, the block size, .part output and the source, then renames', async () => {
    // A stand-in `flac`: answers --version, records its arguments, and "encodes" by
    // copying a FLAC made by libflacjs for the same WAV to the -o path.
    const p = paths();
    writeWav(p.wav, { frames: 6000 });
    const reference = path.join(tmp.dir, 'reference.flac');
    await encoder.encode(p.wav, reference);
    const argsLog = path.join(tmp.dir, 'flac-args.txt');
    const program = path.join(tmp.dir, 'fake-flac');
    writeFileSync(
      program,
      `#!/bin/sh
if [ "$1" = "--version" ]; then echo "flac 1.4.3"; exit 0; fi
printf '%s\\n' "$@" > '${argsLog}'
while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then out="$2"; fi; shift; done
cp '${reference}' "$out"
`,
    );
    chmodSync(program, 0o755);
    const own = createFlacEncoder({ engine: 'auto', flacAddon: false, flacProgram: program, compressionLevel: 8 });
    const result = await own.encode(p.wav, p.flac);
    await own.close();
    expect(result).toMatchObject({ engine: 'flac 1.4.3 (flac program)', totalSamples: 6000, sampleRate: 16000 });
    expect(readFileSync(argsLog, 'utf8').trim().split('\n')).toEqual(['--silent', '--force', '--no-padding', '-8', `--blocksize=${FLAC_BLOCK_SIZE}`, '-o', `${p.flac}.part`, p.wav]);
    expect(existsSync(`${p.flac}.part`)).toBe(false);
    expect(readFileSync(p.flac).equals(readFileSync(reference))).toBe(true);
  });
});
