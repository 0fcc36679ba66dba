import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioFileError } from '../../src/audio/errors.js';
import { encodeStreamInfo, parseStreamInfo, readFlacInfo } from '../../src/audio/flac-info.js';
import type { StreamInfo } from '../../src/audio/flac-info.js';
import { tempDir } from '../helpers/paths.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('station-agent-flacinfo-');
});
afterAll(() => tmp.cleanup());

const sample: StreamInfo = {
  minBlockSize: 4096,
  maxBlockSize: 4096,
  minFrameSize: 14,
  maxFrameSize: 5408,
  sampleRate: 384000,
  channels: 2,
  bitsPerSample: 24,
  totalSamples: 2 ** 33 + 12345, // needs all 36 bits
  md5: '50d4d469448e5ea75eb44ab6b7f111f4',
};

function flacFile(name: string, info: StreamInfo, extra = Buffer.alloc(0)): string {
  const header = Buffer.from([0x66, 0x4c, 0x61, 0x43, 0x80, 0x00, 0x00, 0x22]); // fLaC, last block, STREAMINFO, 34
  const file = path.join(tmp.dir, name);
  writeFileSync(file, Buffer.concat([header, encodeStreamInfo(info), extra]));
  return file;
}

describe('STREAMINFO', () => {
  it('round-trips every field, including a 36-bit sample count', () => {
    expect(parseStreamInfo(encodeStreamInfo(sample))).toEqual(sample);
    const mono16: StreamInfo = { ...sample, sampleRate: 48000, channels: 1, bitsPerSample: 16, totalSamples: 1440000 };
    expect(parseStreamInfo(encodeStreamInfo(mono16))).toEqual(mono16);
  });

  it('matches the layout of a known header (libFLAC output for 48 kHz mono 16-bit)', () => {
    const bytes = encodeStreamInfo({ ...sample, sampleRate: 48000, channels: 1, bitsPerSample: 16, totalSamples: 2880000 });
    // 20 bits 48000 = 0x0BB80, 3 bits channels-1 = 0, 5 bits bps-1 = 15, 36 bits 2880000 = 0x2BF200
    expect(bytes.subarray(10, 18).toString('hex')).toBe('0bb800f0002bf200');
  });

  it('readFlacInfo reads the file and its duration', async () => {
    const info = await readFlacInfo(flacFile('ok.flac', { ...sample, totalSamples: 96000, sampleRate: 48000 }, Buffer.alloc(10)));
    expect(info).toMatchObject({ sampleRate: 48000, channels: 2, bitsPerSample: 24, totalSamples: 96000, durationSec: 2, bytes: 52 });
  });
});

describe('readFlacInfo: invalid files', () => {
  async function problem(file: string): Promise<AudioFileError> {
    const err: unknown = await readFlacInfo(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AudioFileError);
    expect((err as AudioFileError).message).toContain(file);
    return err as AudioFileError;
  }

  it('empty, not FLAC, truncated, first block not STREAMINFO', async () => {
    const empty = path.join(tmp.dir, 'empty.flac');
    writeFileSync(empty, '');
    expect((await problem(empty)).reason).toBe('empty');
    const wav = path.join(tmp.dir, 'wav.flac');
    writeFileSync(wav, 'RIFF\0\0\0\0WAVEfmt ');
    expect((await problem(wav)).reason).toBe('not-flac');
    const short = path.join(tmp.dir, 'short.flac');
    writeFileSync(short, Buffer.from('664c61430000002200100010', 'hex'));
    expect((await problem(short)).reason).toBe('truncated');
    const padding = path.join(tmp.dir, 'padding.flac');
    writeFileSync(padding, Buffer.concat([Buffer.from('664c614301000022', 'hex'), Buffer.alloc(34)]));
    expect((await problem(padding)).message).toMatch(/type 1 .* expected STREAMINFO/);
  });
});
