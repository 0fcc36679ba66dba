import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { until } from '../helpers/until.js';
import { buildWav, guanoChunk } from '../helpers/wav-writer.js';
import { writeResultsCsv } from '../policy/support.js';

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A sidecar (docs/SIDECAR.md) that carries its own start: its name says nothing. */
function sidecar(startIso: string): string {
  return JSON.stringify({
    analyzer: 'renamed-copies-test',
    recordingStart: startIso,
    detections: [{ start: 0, end: 3, scientificName: 'Turdus merula', commonName: 'Eurasian Blackbird', confidence: 0.9 }],
  });
}

describe('renamed copies of undated result files (issue 19 item 13)', () => {
  it('queue nothing new: where no name carries the date, the recording is known by its content', async () => {
    world = await createAgentWorld();
    const input = world.inputDir;
    // An undated WAV whose start is in its GUANO metadata, an undated WAV timed by its
    // modification time, and a sidecar without audio that carries its own start.
    writeFileSync(path.join(input, 'site.wav'), buildWav({ frames: 6 * 16_000, after: [guanoChunk({ 'GUANO|Version': '1.0', Timestamp: '2025-06-01T05:00:00+02:00' })] }).bytes);
    writeResultsCsv(path.join(input, 'site.BirdNET.results.csv'), 'site.wav', [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);
    writeFileSync(path.join(input, 'plain.wav'), buildWav({ frames: 5 * 16_000 }).bytes);
    writeResultsCsv(path.join(input, 'plain.BirdNET.results.csv'), 'plain.wav', [[0, 'Parus major', 'Great Tit', 0.8]]);
    writeFileSync(path.join(input, 'rec.detections.json'), sidecar('2025-06-01T06:00:00+02:00'));
    const daemon = await world.startAgent();
    await until('the originals uploaded', () => (world!.counts().detections.uploaded === 3 ? true : undefined), 30_000);
    await world.waitDrained();
    const before = { soundscapes: (await world.allSoundscapes()).length, detections: (await world.allDetections()).length };
    expect(before).toEqual({ soundscapes: 2, detections: 3 });

    // The owner copies the folder's files under other names (a second card dump, "(1)" copies).
    copyFileSync(path.join(input, 'site.wav'), path.join(input, 'site-copy.wav'));
    writeResultsCsv(path.join(input, 'site-copy.BirdNET.results.csv'), 'site-copy.wav', [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);
    copyFileSync(path.join(input, 'plain.wav'), path.join(input, 'plain (1).wav'));
    writeResultsCsv(path.join(input, 'plain (1).BirdNET.results.csv'), 'plain (1).wav', [[0, 'Parus major', 'Great Tit', 0.8]]);
    copyFileSync(path.join(input, 'rec.detections.json'), path.join(input, 'rec (1).detections.json'));
    const copies = ['site-copy.BirdNET.results.csv', 'plain (1).BirdNET.results.csv', 'rec (1).detections.json'].map((n) => path.join(input, n));
    await until('the copies read', () => {
      const done = daemon.queue.stmt(`SELECT COUNT(*) FROM ingested_files WHERE path IN (SELECT value FROM json_each(?))`).pluck().get(JSON.stringify(copies));
      return done === copies.length ? true : undefined;
    }, 30_000);
    const counts = await world.waitDrained();
    expect(counts.recordings.uploaded + counts.recordings.pending).toBe(2);
    expect(counts.detections.uploaded + counts.detections.pending).toBe(3);
    expect({ soundscapes: (await world.allSoundscapes()).length, detections: (await world.allDetections()).length }).toEqual(before);
  }, 90_000);
});
