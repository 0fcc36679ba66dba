import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IngestContext } from '../../src/ingest/context.js';
import { classifyPath, type ResultClass } from '../../src/ingest/formats.js';
import { openAudio, type ValidAudio } from '../../src/ingest/recording-audio.js';
import { identifyRecording } from '../../src/ingest/recording-identity.js';
import { openResultFile, type OpenResult } from '../../src/ingest/result-stream.js';
import { tempDir } from '../helpers/paths.js';
import { buildWav } from '../helpers/wav-writer.js';
import { writeResultsCsv } from '../policy/support.js';

let cleanup: (() => void) | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  cleanup?.();
});

/** A recording on disk, opened as ingest opens it, with the content keys' reads counted. */
async function opened(dir: string, base: string): Promise<{ audio: ValidAudio; result: OpenResult; what: ResultClass; file: string; keysRead: () => number }> {
  const wav = path.join(dir, `${base}.wav`);
  writeFileSync(wav, buildWav({ frames: 16_000 }).bytes);
  const file = path.join(dir, `${base}.BirdNET.results.csv`);
  writeResultsCsv(file, `${base}.wav`, [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);
  const what = classifyPath(file) as ResultClass;
  const audio = await openAudio(wav, { asItIs: false });
  if (!('handle' in audio)) throw new Error(`audio not read: ${JSON.stringify(audio)}`);
  const result = await openResultFile(file, what, { format: 'auto', maxBytes: 1 << 20, now: Date.now() });
  if (result.kind !== 'open') throw new Error('result not open');
  const valid: ValidAudio = audio;
  closers.push(() => valid.close(), () => result.close());
  let reads = 0;
  const counted = (key: () => Promise<string>) => () => {
    reads++;
    return key();
  };
  const countedAudio = { ...valid, contentKey: counted(() => valid.contentKey()) };
  const countedResult = { ...result, contentKey: counted(() => result.contentKey()) };
  return { audio: countedAudio, result: countedResult, what, file, keysRead: () => reads };
}

describe('identifyRecording', () => {
  it('reads no content (64 KiB hashed) where the name carries the start; reads it where none does', async () => {
    const t = tempDir('identity-');
    cleanup = t.cleanup;
    const ctx = { zone: 'UTC' } as IngestContext;
    const dated = await opened(t.dir, '20250601_050000');
    const id = await identifyRecording(ctx, { resultPath: dated.file, what: dated.what, audioPath: path.join(t.dir, '20250601_050000.wav'), audio: dated.audio, opened: dated.result, now: new Date() });
    expect(id?.sourceKey).toBe('20250601_050000.wav|2025-06-01T05:00:00.000Z');
    expect(dated.keysRead()).toBe(0);

    const undated = await opened(t.dir, 'soundscape');
    const id2 = await identifyRecording(ctx, { resultPath: undated.file, what: undated.what, audioPath: path.join(t.dir, 'soundscape.wav'), audio: undated.audio, opened: undated.result, now: new Date() });
    expect(id2?.sourceKey).toMatch(/^audio:\d+:[0-9a-f]{16}$/);
    expect(undated.keysRead()).toBe(1);
  });
});
