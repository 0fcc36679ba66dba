import { existsSync, linkSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFlacEncoder, type FlacEncoder } from '../../src/audio/flac-encoder.js';
import { readFlacInfo } from '../../src/audio/flac-info.js';
import { SpoolCompaction } from '../../src/encode/spool-compaction.js';
import { claimEncoded, enqueueRecording, getItem, type Queue } from '../../src/queue/index.js';
import { recording, tempQueue } from '../queue/helpers.js';
import { until } from '../helpers/until.js';
import { writeWav } from '../helpers/wav-writer.js';

let q: Queue;
let dir: string;
let cleanup: () => void;
let encoder: FlacEncoder;
let compaction: SpoolCompaction | undefined;
beforeEach(() => {
  ({ q, dir, cleanup } = tempQueue());
  mkdirSync(path.join(dir, 'spool'));
  mkdirSync(path.join(dir, 'analyzer'));
  encoder = createFlacEncoder();
});
afterEach(async () => {
  await compaction?.stop();
  compaction = undefined;
  await encoder.close();
  cleanup();
});

const silent = pino({ level: 'silent' });
const MIN = 60_000;

/** A WAV recording in the spool, queued `ageMs` ago; `shared`: the analyzer still has its own link. */
function queued(n: number, opts: { ageMs?: number; shared?: boolean; frames?: number } = {}): { id: number; wav: string } {
  const wav = path.join(dir, 'spool', `${n}.wav`);
  const built = writeWav(wav, { frames: opts.frames ?? 16_000, sampleRate: 16_000 });
  if (opts.shared) linkSync(wav, path.join(dir, 'analyzer', `${n}.wav`));
  const { recordingId } = enqueueRecording(
    q,
    { recording: recording(n, { spoolPath: wav, audioFormat: 'wav', filesize: built.bytes.length }), detections: [] },
    { now: Date.now() - (opts.ageMs ?? 0) },
  );
  return { id: recordingId!, wav };
}

function start(options: { maxInMemoryBytes?: number; diskLow?: () => boolean; now?: () => number } = {}): { compacted: () => number; encoded: () => number } {
  let n = 0;
  let encodes = 0;
  // The real encoder, counting the files it finished.
  const counting: FlacEncoder = { ...encoder, encode: (src, dest, opts) => encoder.encode(src, dest, opts).finally(() => encodes++) };
  compaction = new SpoolCompaction(q, counting, silent, { busy: new Set(), onCompacted: () => n++, ...options });
  compaction.start();
  return { compacted: () => n, encoded: () => encodes };
}

describe('the spool compaction (FLAC on the card only where it pays)', () => {
  it('leaves a recent WAV alone: it is encoded into memory at upload time', async () => {
    const { id, wav } = queued(1);
    const big = queued(2, { frames: 80_000 });
    const { compacted } = start({ maxInMemoryBytes: 100_000 });
    await until('the large one compacted', () => compacted() === 1);
    expect(getItem(q, 'recording', id)).toMatchObject({ state: 'pending', audioFormat: 'wav', spoolPath: wav });
    // Too large for memory: its FLAC replaced the WAV, the recording still pending.
    const flac = path.join(dir, 'spool', '2.flac');
    expect(getItem(q, 'recording', big.id)).toMatchObject({ state: 'pending', audioFormat: 'flac', spoolPath: flac, sampleRate: 16_000, durationS: 5 });
    expect(existsSync(big.wav)).toBe(false);
    expect(await readFlacInfo(flac)).toMatchObject({ totalSamples: 80_000, sampleRate: 16_000 });
  });

  it("compacts a backlog's WAVs whose spool link is the last one, not those the analyzer still has", async () => {
    const only = queued(1, { ageMs: 20 * MIN });
    const shared = queued(2, { ageMs: 20 * MIN, shared: true });
    const { compacted } = start();
    await until('compacted', () => compacted() === 1);
    expect(getItem(q, 'recording', only.id)!.audioFormat).toBe('flac');
    expect(getItem(q, 'recording', shared.id)).toMatchObject({ audioFormat: 'wav', spoolPath: shared.wav });
    expect(existsSync(path.join(dir, 'spool', '2.flac'))).toBe(false);
  });

  it('a disk running low makes a WAV waiting a minute a candidate', async () => {
    const { id } = queued(1, { ageMs: 2 * MIN });
    const { compacted } = start({ diskLow: () => true });
    await until('compacted', () => compacted() === 1);
    expect(getItem(q, 'recording', id)!.audioFormat).toBe('flac');
  });

  it('never replaces the audio of a recording claimed meanwhile (sent from memory): its FLAC goes', async () => {
    const { id, wav } = queued(1, { ageMs: 20 * MIN, frames: 16_000 * 60 });
    const { compacted, encoded } = start();
    // The uploader claims it while the compaction encodes.
    expect(claimEncoded(q, { items: [{ id, spoolPath: wav }] })).toHaveLength(1);
    await until('encoded, then its FLAC removed', () => encoded() === 1 && !existsSync(path.join(dir, 'spool', '1.flac')));
    expect(compacted()).toBe(0);
    expect(getItem(q, 'recording', id)).toMatchObject({ state: 'sending', audioFormat: 'wav', spoolPath: wav });
    expect(existsSync(wav)).toBe(true);
  });

  it('a wake for new audio looks at the recordings queued since, not the whole backlog; the age rule waits for the full pass', async () => {
    // Queued 14 minutes ago: not yet a backlog candidate at the first (full) pass.
    const old = queued(1, { ageMs: 14 * MIN });
    let now = Date.now();
    const { compacted } = start({ maxInMemoryBytes: 100_000, now: () => now });
    // Two minutes on, the old one is a candidate by age; a new one too large for memory is queued.
    now += 2 * MIN;
    const big = queued(2, { frames: 80_000 });
    // A turn, so the loop sleeps after its first pass before it is woken.
    await new Promise((resolve) => setImmediate(resolve));
    compaction!.notify();
    await until('the new one compacted', () => compacted() >= 1);
    // A pass over everything (the code before) would have taken the old one first, in id order.
    expect(getItem(q, 'recording', big.id)!.audioFormat).toBe('flac');
    expect(getItem(q, 'recording', old.id)).toMatchObject({ audioFormat: 'wav', spoolPath: old.wav });
  });

  it('fails a pending recording whose WAV cannot be encoded', async () => {
    const { id, wav } = queued(1, { ageMs: 20 * MIN });
    writeFileSync(wav, 'not a RIFF file');
    const { compacted } = start();
    await until('failed', () => compacted() === 1);
    expect(getItem(q, 'recording', id)).toMatchObject({ state: 'failed', lastErrorCode: 'ERR_AUDIO_INVALID' });
  });
});
