import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { classifyPath, type ResultClass } from '../../src/ingest/formats.js';
import { BATCH_SIZE, openResultFile } from '../../src/ingest/result-stream.js';
import { tempDir } from '../helpers/paths.js';

const tmp = tempDir('result-stream-');
afterAll(() => tmp.cleanup());

const HEADER = 'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tSpecies Code\tCommon Name\tScientific Name\tConfidence\n';

function table(rows: number): string {
  let s = HEADER;
  for (let i = 0; i < rows; i++) s += `${i + 1}\tSpectrogram 1\t1\t${i * 3}\t${i * 3 + 3}\t150\t12000\tcomchi1\tCommon Chiffchaff\tPhylloscopus collybita\t0.${5000 + (i % 5000)}\n`;
  return s;
}

describe('openResultFile', () => {
  // The reads are synchronous calls behind promises: without a turn of the event loop
  // between chunks, a daemon reading a large table would hold its uploads and timers for
  // the seconds the table takes.
  it('lets the event loop run between the chunks of a table larger than one read', async () => {
    const file = path.join(tmp.dir, '20240501_060000.BirdNET.selection.table.txt');
    // About 300 KiB (several 64 KiB reads) in three batches: the first read at open, the rest after.
    writeFileSync(file, table(3 * BATCH_SIZE));
    let turns = 0;
    const tick = (): void => {
      turns++;
      if (turns < 1_000) setImmediate(tick);
    };
    setImmediate(tick);
    const opened = await openResultFile(file, classifyPath(file) as ResultClass, { format: 'auto', maxBytes: 10 * 1024 * 1024, now: Date.now() });
    expect(opened.kind).toBe('open');
    if (opened.kind !== 'open') return;
    expect(opened.first.detections).toHaveLength(BATCH_SIZE);
    expect(opened.first.last).toBe(false);
    let rows = opened.first.detections.length;
    for await (const batch of opened.rest()) rows += batch.detections.length;
    const seen = turns;
    turns = 1_000;
    expect(rows).toBe(3 * BATCH_SIZE);
    await opened.close();
    expect(seen).toBeGreaterThanOrEqual(3);
  });
});
