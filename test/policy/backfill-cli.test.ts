import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { buildCli, parseJson, runCli } from '../helpers/cli.js';
import { realFixture } from '../helpers/paths.js';
import { until } from '../helpers/until.js';
import { spoolFiles, writeResultsCsv } from './support.js';

let world: AgentWorld | undefined;
beforeAll(() => buildCli(), 180_000);
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('station-agent ingest (backfill, the CLI as a process) applies the same policies', () => {
  it('spools no audio of a recording with a person in it, queues no non-bird rows, and status shows the counts', async () => {
    world = await createAgentWorld();
    const dump = path.join(world.root, 'sd-card');
    mkdirSync(dump);
    const wav = realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav');
    copyFileSync(wav, path.join(dump, '20240224_161937.wav'));
    writeResultsCsv(path.join(dump, '20240224_161937.BirdNET.results.csv'), '20240224_161937.wav', [
      [0, 'Pica pica', 'Eurasian Magpie', 0.91],
      [3, 'Human vocal', 'Human vocal', 0.12],
      [6, 'Gun', 'Gun', 0.4],
    ]);

    const run = await runCli(['ingest', dump, '--json', '--config', world.configPath]);
    expect(parseJson(run)).toMatchObject({ recordings: 1, detections: 1 });
    // Said on stderr: the file, the class and its confidence.
    expect(run.stderr).toContain('privacy: ');
    expect(run.stderr).toMatch(/20240224_161937\.BirdNET\.results\.csv line 3: Human vocal at 0\.12/);
    // Backfill never spooled the audio: there is nothing to delete afterwards either.
    expect(spoolFiles(world.dataDir)).toEqual([]);

    const status = parseJson(await runCli(['status', '--json', '--offline', '--config', world.configPath]));
    expect(status.policy).toEqual({
      humanSoundscapesWithheld: 1,
      nonBird: { 'Human vocal': 1, Gun: 1 },
      excluded: 0,
      belowSpeciesMinConfidence: 0,
      speciesGateExpired: 0,
    });
    expect(status.queue.soundscapes.pending).toBe(0);
    const text = await runCli(['status', '--offline', '--config', world.configPath]);
    expect(text.stdout).toMatch(/Policies:\s+1 soundscapes withheld \(human\); not posted: Gun 1, Human vocal 1/);

    await world.startAgent();
    await until('the magpie uploaded', () => (world!.counts().detections.uploaded === 1 ? true : undefined), 20_000);
    const [d, ...more] = await world.allDetections();
    expect(more).toEqual([]);
    expect(d.species.scientificName).toBe('Pica pica');
    expect(d.soundscape ?? null).toBeNull();
    expect(await world.allSoundscapes()).toEqual([]);
  });
});
