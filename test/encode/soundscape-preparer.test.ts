import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AudioFileError, FlacEncoderError } from '../../src/audio/errors.js';
import { createFlacEncoder, type EncodedFlac, type FlacEncoder } from '../../src/audio/flac-encoder.js';
import { SoundscapePreparer } from '../../src/encode/soundscape-preparer.js';
import type { WavRecording } from '../../src/queue/index.js';
import { tempDir } from '../helpers/paths.js';
import { until } from '../helpers/until.js';
import { writeWav } from '../helpers/wav-writer.js';

let tmp: ReturnType<typeof tempDir>;
let encoder: FlacEncoder;
beforeEach(() => {
  tmp = tempDir('station-agent-preparer-');
  encoder = createFlacEncoder();
});
afterEach(async () => {
  await encoder.close();
  tmp.cleanup();
});

const silent = pino({ level: 'silent' });

function wavItem(id: number, frames = 8_000): WavRecording {
  const spoolPath = path.join(tmp.dir, `${id}.wav`);
  const built = writeWav(spoolPath, { frames, sampleRate: 16_000 });
  return { id, spoolPath, filesize: built.bytes.length, queued: null, reconcile: false, createdAt: 0 };
}

describe('the encode step (into memory, before the claim)', () => {
  it('encodes what it is handed into memory, holds one slot each, and hands it over once', async () => {
    let ready = 0;
    const p = new SoundscapePreparer(encoder, silent, () => ready++);
    const items = [wavItem(1), wavItem(2)];
    expect(p.start(items)).toBe(2);
    expect(p.inProgress).toBe(2);
    expect(p.excluded().sort()).toEqual([1, 2]);
    await until('both encoded', () => p.ready === 2);
    expect(ready).toBe(2);
    const taken = p.take(5);
    expect(taken.map((t) => [t.id, t.flac?.totalSamples, t.flac?.data.subarray(0, 4).toString('latin1')])).toEqual([
      [1, 8_000, 'fLaC'],
      [2, 8_000, 'fLaC'],
    ]);
    expect(p.take(5)).toEqual([]);
    // Handed over, still not to be read again until released (being sent).
    expect(p.excluded().sort()).toEqual([1, 2]);
    for (const t of taken) p.release(t);
    expect(p.excluded()).toEqual([]);
    // Nothing was written beside the WAVs.
    expect(readdirSync(tmp.dir).sort()).toEqual(['1.wav', '2.wav']);
  });

  it('bounds the WAV bytes held in memory: one always, more only within the bound', async () => {
    const a = wavItem(1);
    const b = wavItem(2);
    const p = new SoundscapePreparer(encoder, silent, () => {}, { maxHeldBytes: a.filesize! + 10 });
    expect(p.start([a, b])).toBe(1);
    await until('encoded', () => p.ready === 1);
    expect(p.canStart()).toBe(true);
    expect(p.start([b])).toBe(0);
    const [taken] = p.take(1);
    expect(p.start([b])).toBe(0); // still being sent
    p.release(taken);
    expect(p.start([b])).toBe(1);
  });

  it('returns audio that cannot be encoded as a fault of the recording, and goes on', async () => {
    const bad = { id: 7, spoolPath: path.join(tmp.dir, 'bad.wav'), filesize: 20, queued: null, reconcile: false, createdAt: 0 };
    writeFileSync(bad.spoolPath, 'not a RIFF file at all');
    const gone = { ...bad, id: 8, spoolPath: path.join(tmp.dir, 'gone.wav') };
    const p = new SoundscapePreparer(encoder, silent, () => {});
    p.start([bad, gone]);
    await until('both done', () => p.ready === 2);
    const [b, g] = p.take(2);
    expect(b.fault).toBeInstanceOf(AudioFileError);
    expect((g.fault as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(p.canStart()).toBe(true);
  });

  it("pauses the whole step with a backoff when the encoder itself fails (the station's fault, not the recording's)", async () => {
    let t = 1_000_000;
    const broken: FlacEncoder = {
      encode: () => Promise.reject(new FlacEncoderError('the worker died')),
      encodeToMemory: (): Promise<EncodedFlac> => Promise.reject(new FlacEncoderError('the worker died')),
      close: () => Promise.resolve(),
    };
    let done = 0;
    const p = new SoundscapePreparer(broken, silent, () => done++, { now: () => t });
    p.start([wavItem(1)]);
    await until('failed', () => done === 1);
    expect(p.ready).toBe(0);
    expect(p.excluded()).toEqual([]);
    expect(p.canStart()).toBe(false);
    expect(p.pausedUntilMs).toBe(t + 1_000);
    t += 1_000;
    expect(p.canStart()).toBe(true);
    p.start([wavItem(2)]);
    await until('failed again', () => done === 2);
    expect(p.pausedUntilMs).toBe(t + 2_000);
  });

  it('stop drops what is ready and what is still encoding', async () => {
    const p = new SoundscapePreparer(encoder, silent, () => {});
    p.start([wavItem(1)]);
    p.stop();
    await until('settled', () => p.inProgress === 0);
    expect(p.ready).toBe(0);
    expect(p.excluded()).toEqual([]);
    expect(p.canStart()).toBe(false);
  });
});
