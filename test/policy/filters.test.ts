import { copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readPolicyCounts } from '../../src/policy/counts.js';
import { getItem, listItems } from '../../src/queue/index.js';
import { SPECIES_GATE, SPECIES_GATE_CODE } from '../../src/queue/species-gate.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { realFixture } from '../helpers/paths.js';
import { until } from '../helpers/until.js';
import { spoolFiles, writeResultsCsv, type Row } from './support.js';

const MAGPIE_WAV = realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav');

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function describeWorld(): string {
  return world ? world.logLines.slice(-40).join('\n') : '';
}

/** A recording with real audio and a v2.x CSV beside it, named `YYYYMMDD_HHMMSS` (UTC). */
function addRecording(base: string, rows: readonly Row[]): void {
  copyFileSync(MAGPIE_WAV, path.join(world!.inputDir, `${base}.wav`));
  writeResultsCsv(path.join(world!.inputDir, `${base}.BirdNET.results.csv`), `${base}.wav`, rows);
}

describe('filters at ingest: non-bird classes, include/exclude, per-species thresholds', () => {
  it('posts only what passes, queues nothing that would fail at the service, and counts the rest per class', async () => {
    world = await createAgentWorld({
      config: {
        input: { minConfidence: 0.5 },
        filters: { exclude: ['house sparrow'], speciesMinConfidence: { 'Eurasian Magpie': 0.95, 'turdus merula': 0.2 } },
      },
    });
    addRecording('20240224_161937', [
      [0, 'Pica pica', 'Eurasian Magpie', 0.9],
      [3, 'Pica pica', 'Eurasian Magpie', 0.96],
      [6, 'Passer domesticus', 'House Sparrow', 0.9],
      [9, 'Turdus merula', 'Eurasian Blackbird', 0.3],
      [12, 'Dog', 'Dog', 0.9],
      [15, 'Engine', 'Engine', 0.7],
      [18, 'Siren', 'Siren', 0.6],
      [21, 'Power tools', 'Power tools', 0.55],
      // Below privacy.humanMinConfidence (0.04): the soundscape still goes.
      [24, 'Human vocal', 'Human vocal', 0.01],
    ]);
    await world.startAgent();
    await until('two detections uploaded', () => (world!.counts().detections.uploaded === 2 ? true : undefined), 20_000, describeWorld);
    const counts = await world.waitDrained();
    expect(counts.recordings.uploaded).toBe(1);
    expect(counts.detections).toMatchObject({ uploaded: 2, failed: 0, dropped: 0, pending: 0 });

    const posted = (await world.allDetections()).map((d) => [d.species.scientificName, d.confidence]).sort();
    expect(posted).toEqual([
      ['Pica pica', 0.96],
      ['Turdus merula', 0.3],
    ]);
    expect(await world.allSoundscapes()).toHaveLength(1);
    expect(readPolicyCounts(world.daemon!.queue)).toEqual({
      humanSoundscapesWithheld: 0,
      nonBird: { Dog: 1, Engine: 1, Siren: 1, 'Power tools': 1 },
      excluded: 1,
      belowSpeciesMinConfidence: 1,
      speciesGateExpired: 0,
    });
  });
});

describe('species gate (filters.minDetectionsPer24h) against the local service', () => {
  it('holds a species until its second detection within 24 h, then posts both with their soundscapes; a lone one expires with its audio', async () => {
    world = await createAgentWorld({ config: { filters: { minDetectionsPer24h: 2 } } });
    await world.startAgent();
    addRecording('20240224_060000', [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);
    addRecording('20240224_061500', [[0, 'Turdus merula', 'Eurasian Blackbird', 0.9]]);
    await until('two recordings queued', () => (world!.counts().recordings.pending === 2 ? true : undefined), 20_000, describeWorld);
    const q = world.daemon!.queue;
    const held = listItems(q, { kind: 'detection', limit: 100 }).items;
    expect(held.map((d) => d.holdReason)).toEqual([SPECIES_GATE, SPECIES_GATE]);
    expect(await world.allDetections()).toEqual([]);

    // The magpie again, 5 h later: both magpies go, each with its soundscape.
    addRecording('20240224_110000', [[0, 'Pica pica', 'Eurasian Magpie', 0.8]]);
    await until('magpies uploaded', () => (world!.counts().detections.uploaded === 2 ? true : undefined), 20_000, describeWorld);
    await until('their soundscapes uploaded', () => (world!.counts().recordings.uploaded === 2 ? true : undefined), 20_000, describeWorld);
    const magpies = await world.allDetections();
    expect(magpies.map((d) => d.species.scientificName)).toEqual(['Pica pica', 'Pica pica']);
    for (const d of magpies) expect(d.soundscape?.url).toBeTruthy();

    // A day later the lone blackbird expires: dropped with the reason, its recording and spooled audio with it.
    const blackbird = listItems(q, { kind: 'detection', limit: 100 })
      .items.filter((d) => d.kind === 'detection')
      .find((d) => d.scientificName === 'Turdus merula')!;
    const rec = getItem(q, 'recording', blackbird.recordingId!)!;
    expect(rec.holdReason).toBe(SPECIES_GATE);
    expect(existsSync(rec.spoolPath!)).toBe(true);
    // (The day is skipped by moving the sighting's expiry into the past; the daemon's own sweep does the rest.)
    q.stmt('UPDATE species_sightings SET expires_at = ? WHERE dedupe_key = ?').run(Date.now() - 1, blackbird.dedupeKey);
    // Twice: a sweep already under way (the minute's timer) is joined, not restarted.
    await world.daemon!.housekeeping();
    await world.daemon!.housekeeping();
    expect(getItem(q, 'detection', blackbird.id)).toMatchObject({ state: 'dropped', lastErrorCode: SPECIES_GATE_CODE });
    expect(getItem(q, 'recording', rec.id)).toMatchObject({ state: 'dropped', lastErrorCode: SPECIES_GATE_CODE, spoolPath: null });
    expect(existsSync(rec.spoolPath!)).toBe(false);
    expect(spoolFiles(world.dataDir)).toEqual([]);
    expect(readPolicyCounts(q).speciesGateExpired).toBe(1);
    expect((await world.allDetections()).map((d) => d.species.scientificName)).toEqual(['Pica pica', 'Pica pica']);
  });
});
