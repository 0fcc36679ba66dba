import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSamples, flacBitsFor, readPcmChunks } from '../../src/audio/pcm.js';
import { readWavInfo } from '../../src/audio/wav.js';
import { openRegularFileStat } from '../../src/system/regular-file.js';
import { tempDir } from '../helpers/paths.js';
import { encodePcm, writeWav } from '../helpers/wav-writer.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('station-agent-pcm-');
});
afterAll(() => tmp.cleanup());

const PCM = 1;
const FLOAT = 3;

describe('decodeSamples', () => {
  it('8-bit WAV is unsigned: 128 is silence', () => {
    expect(Array.from(decodeSamples(encodePcm([-128, -1, 0, 1, 127], 'pcm8'), { formatTag: PCM, bitsPerSample: 8 }))).toEqual([
      -128, -1, 0, 1, 127,
    ]);
  });

  it('16-bit and 24-bit keep every value, including the extremes and sign extension', () => {
    const s16 = [-32768, -1, 0, 1, 255, 256, 32767];
    expect(Array.from(decodeSamples(encodePcm(s16, 'pcm16'), { formatTag: PCM, bitsPerSample: 16 }))).toEqual(s16);
    const s24 = [-8388608, -65536, -1, 0, 1, 65535, 8388607];
    expect(Array.from(decodeSamples(encodePcm(s24, 'pcm24'), { formatTag: PCM, bitsPerSample: 24 }))).toEqual(s24);
  });

  it('32-bit integer drops the 8 lowest bits (24-bit output)', () => {
    const s32 = [-2147483648, -256, -1, 0, 255, 256, 2147483647];
    expect(Array.from(decodeSamples(encodePcm(s32, 'pcm32'), { formatTag: PCM, bitsPerSample: 32 }))).toEqual([
      -8388608, -1, -1, 0, 0, 1, 8388607,
    ]);
  });

  it('float scales by 2^23, rounds, clips beyond full scale and maps NaN to 0', () => {
    const floats = [-2, -1, -0.5, 0, 0.5, 1, 2, NaN, 1 / 8388608];
    const expected = [-8388608, -8388608, -4194304, 0, 4194304, 8388607, 8388607, 0, 1];
    expect(Array.from(decodeSamples(encodePcm(floats, 'float32'), { formatTag: FLOAT, bitsPerSample: 32 }))).toEqual(expected);
    expect(Array.from(decodeSamples(encodePcm(floats, 'float64'), { formatTag: FLOAT, bitsPerSample: 64 }))).toEqual(expected);
  });

  it('flacBitsFor: 8/16/24 stay, 32-bit and float become 24', () => {
    expect(flacBitsFor({ formatTag: PCM, bitsPerSample: 8 })).toBe(8);
    expect(flacBitsFor({ formatTag: PCM, bitsPerSample: 16 })).toBe(16);
    expect(flacBitsFor({ formatTag: PCM, bitsPerSample: 24 })).toBe(24);
    expect(flacBitsFor({ formatTag: PCM, bitsPerSample: 32 })).toBe(24);
    expect(flacBitsFor({ formatTag: FLOAT, bitsPerSample: 32 })).toBe(24);
  });
});

describe('readPcmChunks', () => {
  it('streams a 60 s 48 kHz file in frame-aligned chunks no larger than asked, covering every sample once', async () => {
    const file = path.join(tmp.dir, 'long.wav');
    const { samples } = writeWav(file, { format: 'pcm24', channels: 2, sampleRate: 48000, frames: 48000 * 60 });
    const info = await readWavInfo(file);
    const chunkBytes = 64 * 1024; // 65536 is not a multiple of the 6-byte frame: chunks are rounded down
    const frameAligned = chunkBytes - (chunkBytes % info.blockAlign);
    const sizes: number[] = [];
    let offset = 0;
    let mismatches = 0;
    const { handle } = await openRegularFileStat(file);
    try {
      for (const chunk of readPcmChunks(handle, file, info, { chunkBytes })) {
        sizes.push(chunk.length);
        for (let i = 0; i < chunk.length; i++) if (chunk[i] !== samples[offset + i]) mismatches++;
        offset += chunk.length;
      }
    } finally {
      await handle.close();
    }
    expect(mismatches).toBe(0);
    expect(offset).toBe(samples.length);
    // 17,280,000 bytes of audio in 65,532-byte reads: one chunk is never the whole file.
    expect(sizes.length).toBe(Math.ceil(info.dataBytes / frameAligned));
    expect(Math.max(...sizes)).toBe(frameAligned / 3);
    for (const size of sizes) expect(size % 2).toBe(0);
  });

  it('reports a file that shrank after its header was read', async () => {
    const file = path.join(tmp.dir, 'shrinks.wav');
    writeWav(file, { frames: 10000 });
    const info = await readWavInfo(file);
    const { handle } = await openRegularFileStat(file);
    writeWav(file, { frames: 100 }); // the same file, truncated and rewritten under the open descriptor
    try {
      expect(() => {
        for (const _ of readPcmChunks(handle, file, info, { chunkBytes: 1024 })) {
          // consume
        }
      }).toThrow(expect.objectContaining({ code: 'ERR_AUDIO_INVALID', reason: 'truncated', file }));
    } finally {
      await handle.close();
    }
  });
});
