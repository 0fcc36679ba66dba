import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioFileError } from '../../src/audio/errors.js';
import type { AudioFileProblem } from '../../src/audio/errors.js';
import { readWavInfo } from '../../src/audio/wav.js';
import { realFixture, tempDir } from '../helpers/paths.js';
import {
  bextChunk,
  buildRiff,
  buildWav,
  dataChunk,
  encodePcm,
  factChunk,
  fmtChunk,
  guanoChunk,
  listInfoChunk,
  rawChunk,
  numberedFiles,
} from '../helpers/wav-writer.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('station-agent-wav-');
});
afterAll(() => tmp.cleanup());

const { fileWith, wavFile } = numberedFiles(() => tmp.dir);

async function rejection(file: string): Promise<AudioFileError> {
  const err: unknown = await readWavInfo(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AudioFileError);
  return err as AudioFileError;
}

async function expectProblem(file: string, reason: AudioFileProblem, message: RegExp): Promise<AudioFileError> {
  const err = await rejection(file);
  expect(err.code).toBe('ERR_AUDIO_INVALID');
  expect(err.reason).toBe(reason);
  expect(err.file).toBe(file);
  expect(err.message.startsWith(`${file}: `)).toBe(true);
  expect(err.message).toMatch(message);
  return err;
}

describe('readWavInfo on real recordings', () => {
  it('reads the AudioMoth file: 32 kHz mono, LIST/INFO comment and artist before an id3 chunk', async () => {
    const info = await readWavInfo(realFixture('opensoundscape_8b582152/metadata.wav'));
    expect(info).toMatchObject({
      sampleRate: 32000,
      channels: 1,
      bitsPerSample: 16,
      formatTag: 1,
      dataOffset: 44,
      dataBytes: 958044,
      declaredDataBytes: 958044,
      complete: true,
      comment:
        'Recorded at 10:25:00 04/04/2020 (UTC) by AudioMoth 24526B065D325963 at gain setting 2 while battery state was 4.7V.',
      artist: 'AudioMoth 24526B065D325963',
    });
    expect(info.durationSec).toBeCloseTo(958044 / 2 / 32000, 9);
    expect(info.guano).toBeUndefined();
  });

  it('reads the plain PCM file: 48 kHz mono 16-bit, 30 s', async () => {
    const info = await readWavInfo(realFixture('birdnet-pi_88985a3a/Pica pica_30s.wav'));
    expect(info).toMatchObject({ sampleRate: 48000, channels: 1, bitsPerSample: 16, formatTag: 1, complete: true });
    expect(info.durationSec).toBe(30);
    expect(info.comment).toBeUndefined();
  });

  it('reads the WAVE_FORMAT_EXTENSIBLE file with a fact chunk as 16 kHz PCM', async () => {
    const info = await readWavInfo(realFixture('birdnet-analyzer_ea464544_2022-03-02/soundscape.wav'));
    expect(info).toMatchObject({
      sampleRate: 16000,
      channels: 1,
      bitsPerSample: 16,
      validBitsPerSample: 16,
      formatTag: 1, // effective, from the sub-format GUID
      dataOffset: 80,
      dataBytes: 320000,
      complete: true,
    });
    expect(info.durationSec).toBe(10);
  });
});

describe('readWavInfo on odd layouts', () => {
  it('finds LIST/INFO before data, with a fact chunk and an unknown chunk in between', async () => {
    const file = wavFile({
      frames: 1600,
      before: [factChunk(1600), listInfoChunk({ ICMT: 'before data', ICRD: '2024-05-01' }), rawChunk('junk', 'xyz1')],
    });
    const info = await readWavInfo(file);
    expect(info.comment).toBe('before data');
    expect(info.info).toEqual({ ICMT: 'before data', ICRD: '2024-05-01' });
    expect(info.dataBytes).toBe(3200);
    expect(info.durationSec).toBe(0.1);
    expect(info.complete).toBe(true);
  });

  it('finds metadata after data, including GUANO and bext and an id3 chunk', async () => {
    const file = wavFile({
      after: [
        listInfoChunk({ IART: 'Recorder 7' }),
        guanoChunk({ Timestamp: '2024-05-01T06:00:00+02:00', 'Loc Position': '47.1 8.2', 'PET|Model': 'X' }),
        bextChunk({ description: 'dawn chorus', originator: 'rec', date: '2024-05-01', time: '06:00:00' }),
        rawChunk('id3 ', Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00', 'latin1')),
      ],
    });
    const info = await readWavInfo(file);
    expect(info.artist).toBe('Recorder 7');
    expect(info.guano).toEqual({
      'GUANO|Version': '1.0',
      Timestamp: '2024-05-01T06:00:00+02:00',
      'Loc Position': '47.1 8.2',
      'PET|Model': 'X',
    });
    expect(info.bext).toEqual({
      description: 'dawn chorus',
      originator: 'rec',
      originationDate: '2024-05-01',
      originationTime: '06:00:00',
    });
    expect(info.complete).toBe(true);
  });

  it('skips an odd-sized chunk and its pad byte', async () => {
    const file = wavFile({ before: [rawChunk('odd ', 'abc')], after: [listInfoChunk({ ICMT: 'after odd' })] });
    const info = await readWavInfo(file);
    expect(info.dataOffset).toBe(12 + 24 + 8 + 3 + 1 + 8);
    expect(info.comment).toBe('after odd');
  });

  it('tolerates an odd-sized chunk whose writer left out the pad byte', async () => {
    const pcm = encodePcm([1, 2, 3, 4], 'pcm16');
    const bytes = buildRiff([
      fmtChunk({ format: 'pcm16', channels: 1, sampleRate: 8000 }),
      { ...rawChunk('odd ', 'abc'), noPad: true },
      dataChunk(pcm),
    ]);
    const info = await readWavInfo(fileWith(bytes));
    expect(info.dataOffset).toBe(12 + 24 + 8 + 3 + 8);
    expect(info.dataBytes).toBe(8);
  });

  it('reads an odd-sized data chunk (8-bit mono, odd frame count) and the chunk after its pad byte', async () => {
    const file = wavFile({ format: 'pcm8', frames: 1001, after: [listInfoChunk({ ICMT: 'after pad' })] });
    const info = await readWavInfo(file);
    expect(info.dataBytes).toBe(1001);
    expect(info.comment).toBe('after pad');
  });

  it('reads fmt placed after data', async () => {
    const info = await readWavInfo(wavFile({ fmtLast: true, frames: 800 }));
    expect(info).toMatchObject({ sampleRate: 16000, channels: 1, dataBytes: 1600, complete: true });
  });

  it('stops at trailing zero padding after the last chunk', async () => {
    const { bytes } = buildWav({ frames: 100 });
    const info = await readWavInfo(fileWith(Buffer.concat([bytes, Buffer.alloc(37)])));
    expect(info.dataBytes).toBe(200);
    expect(info.complete).toBe(true);
  });

  it('resolves EXTENSIBLE 24-bit stereo', async () => {
    const info = await readWavInfo(wavFile({ format: 'pcm24', channels: 2, extensible: true, frames: 480 }));
    expect(info).toMatchObject({ formatTag: 1, channels: 2, bitsPerSample: 24, blockAlign: 6, dataBytes: 2880 });
  });

  it('resolves EXTENSIBLE 24 valid bits in a 32-bit container', async () => {
    const info = await readWavInfo(wavFile({ format: 'pcm32', extensible: true, validBits: 24, frames: 10 }));
    expect(info).toMatchObject({ formatTag: 1, bitsPerSample: 32, validBitsPerSample: 24 });
  });

  it('reads 32-bit float, plain and EXTENSIBLE', async () => {
    expect(await readWavInfo(wavFile({ format: 'float32', channels: 2 }))).toMatchObject({ formatTag: 3, bitsPerSample: 32 });
    expect(await readWavInfo(wavFile({ format: 'float32', extensible: true }))).toMatchObject({ formatTag: 3 });
  });

  it('decodes a Latin-1 INFO comment', async () => {
    const file = wavFile({ after: [listInfoChunk({ ICMT: 'Grauhäubchenmeise' }, 'latin1')] });
    expect((await readWavInfo(file)).comment).toBe('Grauhäubchenmeise');
  });
});

describe('readWavInfo: completeness', () => {
  it('a data size of 0 (recorder still writing) is incomplete; the audio present is reported', async () => {
    const info = await readWavInfo(wavFile({ frames: 1000, declaredDataBytes: 0 }));
    expect(info.complete).toBe(false);
    expect(info.declaredDataBytes).toBe(0);
    expect(info.dataBytes).toBe(2000);
  });

  it('a 0xFFFFFFFF placeholder is incomplete', async () => {
    const info = await readWavInfo(wavFile({ frames: 1000, declaredDataBytes: 0xffffffff }));
    expect(info.complete).toBe(false);
    expect(info.dataBytes).toBe(2000);
  });

  it('a file shorter than its data chunk declares is incomplete, cut to whole frames', async () => {
    const info = await readWavInfo(wavFile({ format: 'pcm16', channels: 2, frames: 1000, truncateTo: 44 + 1001 }));
    expect(info.complete).toBe(false);
    expect(info.declaredDataBytes).toBe(4000);
    expect(info.dataBytes).toBe(1000);
    expect(info.durationSec).toBe(250 / 16000);
  });

  it('a RIFF size of 0 is incomplete', async () => {
    expect((await readWavInfo(wavFile({ riffSize: 0 }))).complete).toBe(false);
  });
});

describe('readWavInfo: invalid files', () => {
  it('zero-length file', async () => {
    await expectProblem(fileWith(''), 'empty', /empty \(0 bytes\)/);
  });

  it('header cut short', async () => {
    await expectProblem(fileWith('RIFF\x10\0\0'), 'truncated', /truncated header: 7 bytes/);
    await expectProblem(fileWith('RIFF\x04\0\0\0WAVE'), 'truncated', /before the fmt chunk/);
    await expectProblem(fileWith(buildRiff([fmtChunk({ format: 'pcm16', channels: 1, sampleRate: 8000 })]).subarray(0, 30)), 'truncated', /before the fmt chunk/);
  });

  it('not RIFF, described without quoting the file\'s bytes (a misnamed file may hold a secret)', async () => {
    const err = await expectProblem(fileWith('ID3\x04\0\0\0\0\0\0\0\0\0\0'), 'not-riff', /does not start with a RIFF header/);
    expect(err.message).not.toMatch(/ID3/);
    const secret = await expectProblem(fileWith('tok-SECRET-0123456789'), 'not-riff', /not a WAV file/);
    expect(secret.message).not.toMatch(/tok|SECRET/);
  });

  it('RF64 and RIFX are named', async () => {
    await expectProblem(fileWith('RF64\xff\xff\xff\xffWAVEds64'), 'unsupported-format', /RF64/);
    await expectProblem(fileWith('RIFX\0\0\0\x24WAVEfmt '), 'unsupported-format', /big-endian/);
  });

  it('RIFF but not WAVE', async () => {
    const err = await expectProblem(fileWith('RIFF\x04\0\0\0AVI LIST'), 'not-wave', /another form than WAVE/);
    expect(err.message).not.toMatch(/AVI/);
  });

  it('no fmt chunk', async () => {
    await expectProblem(fileWith(buildRiff([dataChunk(Buffer.alloc(8))])), 'no-fmt', /no fmt chunk/);
  });

  it('no data chunk', async () => {
    const bytes = buildRiff([fmtChunk({ format: 'pcm16', channels: 1, sampleRate: 8000 }), listInfoChunk({ ICMT: 'x' })]);
    await expectProblem(fileWith(bytes), 'no-data', /no data chunk/);
  });

  it('a data chunk header cut short', async () => {
    const bytes = buildRiff([fmtChunk({ format: 'pcm16', channels: 1, sampleRate: 8000 }), dataChunk(Buffer.alloc(8))]);
    await expectProblem(fileWith(bytes.subarray(0, 40)), 'truncated', /before the data chunk/);
  });

  it('fmt chunk too short', async () => {
    const bytes = buildRiff([rawChunk('fmt ', Buffer.alloc(14)), dataChunk(Buffer.alloc(8))]);
    await expectProblem(fileWith(bytes), 'bad-fmt', /fmt chunk is 14 bytes/);
  });

  it('MP3 in WAV (format tag 0x0055)', async () => {
    const bytes = buildRiff([fmtChunk({ format: 'pcm16', channels: 1, sampleRate: 44100, formatTag: 0x55 }), dataChunk(Buffer.alloc(8))]);
    await expectProblem(fileWith(bytes), 'unsupported-format', /format tag 0x0055 \(MP3\)/);
  });

  it('unknown EXTENSIBLE sub-format', async () => {
    const fmt = fmtChunk({ format: 'pcm16', channels: 1, sampleRate: 8000, extensible: true });
    fmt.body.fill(0x42, 26, 40);
    await expectProblem(fileWith(buildRiff([fmt, dataChunk(Buffer.alloc(8))])), 'unsupported-format', /sub-format GUID/);
  });

  it('zero channels, zero sample rate', async () => {
    const zeroChannels = fmtChunk({ format: 'pcm16', channels: 1, sampleRate: 8000 });
    zeroChannels.body.writeUInt16LE(0, 2);
    await expectProblem(fileWith(buildRiff([zeroChannels, dataChunk(Buffer.alloc(8))])), 'bad-fmt', /0 channels/);
    const zeroRate = fmtChunk({ format: 'pcm16', channels: 1, sampleRate: 0 });
    await expectProblem(fileWith(buildRiff([zeroRate, dataChunk(Buffer.alloc(8))])), 'bad-fmt', /sample rate of 0 Hz/);
  });

  it('unsupported sample sizes and a block align that does not match', async () => {
    const twelveBit = fmtChunk({ format: 'pcm16', channels: 1, sampleRate: 8000 });
    twelveBit.body.writeUInt16LE(12, 14);
    await expectProblem(fileWith(buildRiff([twelveBit, dataChunk(Buffer.alloc(8))])), 'unsupported-format', /12-bit integer PCM/);
    const badAlign = fmtChunk({ format: 'pcm16', channels: 2, sampleRate: 8000, blockAlign: 2 });
    await expectProblem(fileWith(buildRiff([badAlign, dataChunk(Buffer.alloc(8))])), 'bad-fmt', /block align 2/);
  });

  it('a missing file rejects with the system error', async () => {
    await expect(readWavInfo(path.join(tmp.dir, 'nope.wav'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
