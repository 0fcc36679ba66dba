import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAudio, type AudioInspection } from '../../src/ingest/recording-audio.js';
import { realFixture, tempDir } from '../helpers/paths.js';
import { buildRiff, fmtChunk, numberedFiles } from '../helpers/wav-writer.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('station-agent-recording-audio-');
});
afterAll(() => tmp.cleanup());

const { fileWith, wavFile } = numberedFiles(() => tmp.dir);

/** openAudio's verdict on `file` (the handle of a valid one closed). */
async function kindOf(file: string, asItIs = false): Promise<AudioInspection['kind']> {
  const audio = await openAudio(file, { asItIs });
  if (audio.kind === 'wav' || audio.kind === 'flac') await audio.close();
  return audio.kind;
}

// The ingest's one check of a WAV that may still be written (the pairing waits on 'not-ready').
describe('openAudio: a WAV still being written', () => {
  it('takes a finished file', async () => {
    expect(await kindOf(wavFile())).toBe('wav');
    expect(await kindOf(realFixture('opensoundscape_8b582152/metadata.wav'))).toBe('wav');
  });

  it('waits while the header is cut short, the data chunk is missing or its size is not filled in', async () => {
    expect(await kindOf(fileWith('RIFF\0\0'))).toBe('not-ready');
    expect(await kindOf(fileWith(buildRiff([fmtChunk({ format: 'pcm16', channels: 1, sampleRate: 8000 })])))).toBe('not-ready');
    expect(await kindOf(wavFile({ frames: 1000, declaredDataBytes: 0 }))).toBe('not-ready');
  });

  it('takes a WAV whose data size was never filled in as it is, when told to', async () => {
    const audio = await openAudio(wavFile({ frames: 1000, declaredDataBytes: 0 }), { asItIs: true });
    expect(audio).toMatchObject({ kind: 'wav', durationSec: 1000 / 16000 });
    if (audio.kind === 'wav') {
      expect(audio.recovered).toMatch(/data size of 0/);
      await audio.close();
    }
  });

  it('refuses what will never be a WAV, an empty file among them, and says when it is gone', async () => {
    expect(await kindOf(fileWith('ID3\x04 some mp3'))).toBe('invalid');
    expect(await kindOf(fileWith(''))).toBe('invalid');
    expect(await kindOf(path.join(tmp.dir, 'missing.wav'))).toBe('missing');
  });
});
