import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { realFixture } from '../helpers/paths.js';
import { writeWav } from '../helpers/wav-writer.js';
import { until } from '../helpers/until.js';

/**
 * `station-agent run` (the daemon, in-process) against the local service, at the edges of
 * what the analyzer's folder holds: results without audio and without a time, rows beyond
 * the end of their audio, and result files read while they are still being written.
 */
let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});


function fileOutcome(w: AgentWorld, file: string): { outcome: string; detail: string | null } | undefined {
  return w.daemon!.queue.db.prepare('SELECT outcome, detail FROM ingested_files WHERE path = ?').get(file) as
    | { outcome: string; detail: string | null }
    | undefined;
}

const logged = (w: AgentWorld, text: string) => w.logLines.some((l) => l.includes(text));

const RAVEN_HEADER = 'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tSpecies Code\tCommon Name\tConfidence\n';

describe('ingest edges, through station-agent run', () => {
  it('times a result without audio by its name, and never by the time it was read: without any start it is an error naming the file', async () => {
    world = await createAgentWorld();
    const table = realFixture('birdnet-analyzer_ccf4b228_2023-03-28', 'soundscape.BirdNET.selection.table.txt');
    const dated = path.join(world.inputDir, 'ST_20260603_041600.BirdNET.selection.table.txt');
    const undated = path.join(world.inputDir, 'nightly.BirdNET.selection.table.txt');
    copyFileSync(table, dated);
    copyFileSync(table, undated);

    await world.startAgent();
    const w = world;
    const error = await until('the undated file recorded', () => fileOutcome(w, undated));
    expect(error.outcome).toBe('error');
    expect(error.detail).toContain(`${undated}: no recording start`);
    expect(logged(w, 'no recording start')).toBe(true);

    await w.waitDrained();
    const detections = await w.allDetections();
    const rows = readFileSync(table, 'utf8').trim().split('\n').length - 1;
    // Only the dated file's rows reached the service, each at 2026-06-03 04:16 (Berlin) + its offset.
    expect(detections).toHaveLength(rows);
    for (const d of detections) expect(d.timestamp).toMatch(/^2026-06-03T04:1[6-9]:\d\d\.000\+02:00$/);
    expect(detections.map((d) => d.timestamp)).toContain('2026-06-03T04:16:00.000+02:00');
  }, 120_000);

  it('rejects a row that starts after the end of its audio, naming the file and line; the other rows go on', async () => {
    world = await createAgentWorld();
    const base = path.join(world.inputDir, 'ST_20250601_100000');
    writeWav(`${base}.wav`, { sampleRate: 16_000, frames: 15 * 16_000 });
    const result = `${base}.BirdNET.results.csv`;
    writeFileSync(
      result,
      'Start (s),End (s),Scientific name,Common name,Confidence\n' +
        '0.0,3.0,Phylloscopus collybita,Common Chiffchaff,0.8\n' +
        '12.0,15.0,Parus major,Great Tit,0.7\n' +
        '30.0,33.0,Turdus merula,Eurasian Blackbird,0.9\n',
    );

    await world.startAgent();
    const counts = await world.waitDrained();
    expect(counts.detections.uploaded).toBe(2);
    const detections = await world.allDetections();
    expect(detections.map((d) => [d.species.scientificName, d.soundscape?.startTime]).sort()).toEqual([
      ['Parus major', 12],
      ['Phylloscopus collybita', 0],
    ]);
    expect(logged(world, `${result} line 4: Turdus merula at 30-33 s starts after the end of the 15 s audio ST_20250601_100000.wav; row skipped`)).toBe(
      true,
    );
  }, 120_000);

  it('never reads half a line: a table caught mid-write waits for its line end, and a row changed later is reported, not duplicated', async () => {
    world = await createAgentWorld();
    const table = path.join(world.inputDir, 'ST_20250601_100000.BirdNET.selection.table.txt');
    // The analyzer's writer stopped in the middle of "0.95".
    writeFileSync(table, `${RAVEN_HEADER}1\tSpectrogram 1\t1\t0\t3.0\t150\t12000\tcomchi1\tCommon Chiffchaff\t0.9`);

    await world.startAgent();
    const w = world;
    // Seen, and left for later (or, before this fix, queued with the cut value).
    const queued = () => Object.values(w.counts().detections).some((n) => n > 0);
    await until('the unfinished table looked at', () => logged(w, 'its last line has no line end yet') || queued());
    appendFileSync(table, '5\n');

    await w.waitDrained();
    const [only, ...others] = await w.allDetections();
    expect(others).toEqual([]);
    expect(only.confidence).toBeCloseTo(0.95, 6);

    // Rewritten after upload with another confidence: the same row (no duplicate), reported.
    writeFileSync(table, `${RAVEN_HEADER}1\tSpectrogram 1\t1\t0\t3.0\t150\t12000\tcomchi1\tCommon Chiffchaff\t0.97\n`);
    await until('the changed row reported', () => logged(w, `${table} line 2: detection d`));
    expect(w.logLines.find((l) => l.includes('changed after it was queued'))).toContain(
      'confidence 0.95 -> 0.97); it was already uploaded with the old values, which stand at the service',
    );
    expect(await w.allDetections()).toHaveLength(1);
  }, 120_000);
});
