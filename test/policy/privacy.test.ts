import { copyFileSync, existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createAgentMetrics } from '../../src/metrics/agent-metrics.js';
import { collectStatus } from '../../src/status/report.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { realFixture } from '../helpers/paths.js';
import { until } from '../helpers/until.js';
import { analyzerpiJson, policyLogLines, spoolFiles, writeResultsCsv } from './support.js';

const MAGPIE_WAV = realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav');

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function describeWorld(): string {
  return world ? world.logLines.slice(-40).join('\n') : '';
}

describe('privacy: soundscapes in which the analyzer heard a person', () => {
  it('withholds the soundscape even for a human row below input.minConfidence, posts the birds without it, and counts it', async () => {
    world = await createAgentWorld({ config: { input: { minConfidence: 0.5 } } });
    // Recording A: a voice at 0.21 (below the upload threshold 0.5, above the privacy threshold).
    copyFileSync(MAGPIE_WAV, path.join(world.inputDir, '20240224_161937.wav'));
    writeResultsCsv(path.join(world.inputDir, '20240224_161937.BirdNET.results.csv'), '20240224_161937.wav', [
      [0, 'Pica pica', 'Eurasian Magpie', 0.912],
      [9, 'Pica pica', 'Eurasian Magpie', 0.9316],
      [12, 'Human vocal', 'Human vocal', 0.21],
      [18, 'Dog', 'Dog', 0.8],
    ]);
    // Recording B, the control: no person, so its soundscape goes.
    copyFileSync(MAGPIE_WAV, path.join(world.inputDir, '20240224_170000.wav'));
    writeResultsCsv(path.join(world.inputDir, '20240224_170000.BirdNET.results.csv'), '20240224_170000.wav', [
      [0, 'Pica pica', 'Eurasian Magpie', 0.9],
    ]);

    await world.startAgent();
    await until('three detections uploaded', () => (world!.counts().detections.uploaded === 3 ? true : undefined), 20_000, describeWorld);
    const counts = await world.waitDrained();
    expect(counts.detections.uploaded).toBe(3);
    expect(counts.detections.failed + counts.recordings.failed).toBe(0);
    expect(counts.recordings.uploaded).toBe(1);

    const soundscapes = await world.allSoundscapes();
    // AudioMoth-style names are UTC: B starts 17:00Z = 18:00 in Berlin.
    expect(soundscapes.map((s) => s.timestamp)).toEqual(['2024-02-24T18:00:00.000+01:00']);
    const detections = await world.allDetections();
    expect(detections.map((d) => d.species.scientificName)).toEqual(['Pica pica', 'Pica pica', 'Pica pica']);
    const ofA = detections.filter((d) => d.timestamp.startsWith('2024-02-24T17:19'));
    expect(ofA).toHaveLength(2);
    for (const d of ofA) expect(d.soundscape ?? null).toBeNull();

    // Nothing of A's audio is in the spool (B's copy went after its upload).
    // Twice: a sweep already under way (the minute's timer) is joined, not restarted.
    await world.daemon!.housekeeping();
    await world.daemon!.housekeeping();
    expect(spoolFiles(world.dataDir)).toEqual([]);

    // Logged: the file, the class, the confidence.
    const [line, ...more] = policyLogLines(world.logLines).filter((l) => l.policy === 'privacy');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ class: 'Human vocal', confidence: 0.21, file: path.join(world.inputDir, '20240224_161937.BirdNET.results.csv') });

    // Counted, in status and in the metrics (the Dog at 0.8 as a class not posted; the voice was below 0.5).
    const { config } = await loadConfig({ path: world.configPath, env: {} });
    const status = await collectStatus({ config, configFile: world.configPath, offline: true });
    expect(status.policy).toMatchObject({ humanSoundscapesWithheld: 1, nonBird: { Dog: 1 } });
    const metrics = await createAgentMetrics({ queue: world.daemon!.queue, snapshot: () => null }).registry.metrics();
    expect(metrics).toContain('station_agent_privacy_soundscapes_withheld_total 1');
    expect(metrics).toContain('station_agent_non_bird_detections_total{class="Dog"} 1');
  });

  it('analyzerpi: deletes the WAV linked into the spool on sight when its JSON says human; it never reaches the encoder or the service', async () => {
    world = await createAgentWorld({ config: { input: { format: 'analyzerpi', minConfidence: 0.7 } } });
    await world.startAgent();
    const incoming = path.join(world.dataDir, 'spool', 'incoming');
    const name = '2024-02-24-birdnet-16:19:37.wav';
    const wav = path.join(world.inputDir, name);
    copyFileSync(MAGPIE_WAV, wav);
    // Taken on sight, before the JSON exists.
    await until('WAV linked into incoming/', () => (existsSync(path.join(incoming, name)) ? true : undefined), 20_000, describeWorld);
    writeFileSync(
      `${wav}.json`,
      analyzerpiJson(name, '2024-02-24T16:19:37+01:00', [
        [0, 'Eurasian Magpie', 0.912],
        [6, 'Human whistle', 0.06],
      ]),
    );
    rmSync(wav);

    const counts = await world.waitDrained();
    expect(counts.detections.uploaded).toBe(1);
    expect(counts.recordings).toMatchObject({ pending: 0, uploaded: 0, failed: 0 });
    expect(await world.allSoundscapes()).toEqual([]);
    const [d] = await world.allDetections();
    expect(d.species.scientificName).toBe('Pica pica');
    expect(readdirSync(incoming)).toEqual([]);
    expect(spoolFiles(world.dataDir)).toEqual([]);
    expect(policyLogLines(world.logLines)).toEqual([expect.objectContaining({ policy: 'privacy', class: 'Human whistle', confidence: 0.06 })]);
  });
});

describe('privacy.audio never: detections only', () => {
  it('takes no WAV into the spool and uploads no soundscape, from either input layout', async () => {
    world = await createAgentWorld({ config: { privacy: { audio: 'never' } } });
    await world.startAgent();
    // An analyzerpi WAV whose JSON never comes: with audio allowed it would be hard-linked into incoming/.
    const lone = path.join(world.inputDir, '2024-02-24-birdnet-16:00:00.wav');
    copyFileSync(MAGPIE_WAV, lone);
    const name = '2024-02-24-birdnet-16:19:37.wav';
    copyFileSync(MAGPIE_WAV, path.join(world.inputDir, name));
    writeFileSync(path.join(world.inputDir, `${name}.json`), analyzerpiJson(name, '2024-02-24T16:19:37+01:00', [[0, 'Eurasian Magpie', 0.912]]));
    copyFileSync(MAGPIE_WAV, path.join(world.inputDir, '20240224_170000.wav'));
    writeResultsCsv(path.join(world.inputDir, '20240224_170000.BirdNET.results.csv'), '20240224_170000.wav', [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);

    await until('both detections uploaded', () => (world!.counts().detections.uploaded === 2 ? true : undefined), 20_000, describeWorld);
    expect(world.counts().recordings).toMatchObject({ pending: 0, uploaded: 0 });
    expect(await world.allSoundscapes()).toEqual([]);
    expect(spoolFiles(world.dataDir)).toEqual([]);
    // Never linked: the lone WAV has only its own name.
    expect(statSync(lone).nlink).toBe(1);
    expect(policyLogLines(world.logLines)).toEqual([]);
  });

  it('also withholds the soundscapes queued before the switch: their detections go without them, their audio is deleted', async () => {
    world = await createAgentWorld();
    // The service is down (nothing listens on its port): two recordings wait in the spool.
    const serviceUrl = world.emulator.url;
    const down = `http://127.0.0.1:${await closedPort()}`;
    writeConfig(world.configPath, (c) => ({ ...c, service: { ...c.service, baseUrl: down } }));
    copyFileSync(MAGPIE_WAV, path.join(world.inputDir, '20240224_160000.wav'));
    writeResultsCsv(path.join(world.inputDir, '20240224_160000.BirdNET.results.csv'), '20240224_160000.wav', [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);
    copyFileSync(MAGPIE_WAV, path.join(world.inputDir, '20240224_170000.wav'));
    writeResultsCsv(path.join(world.inputDir, '20240224_170000.BirdNET.results.csv'), '20240224_170000.wav', [[3, 'Pica pica', 'Eurasian Magpie', 0.8]]);
    const first = await world.startAgent();
    await until('two recordings spooled, their uploads failing', () => {
      const n = first.queue.stmt(`SELECT COUNT(*) AS n FROM recordings WHERE state = 'pending' AND attempts > 0 AND spool_path IS NOT NULL`).get() as { n: number };
      return n.n === 2;
    }, 30_000, describeWorld);
    await world.stopAgent();
    expect(spoolFiles(world.dataDir).length).toBeGreaterThanOrEqual(2);

    // The owner switches audio off; the service is back.
    writeConfig(world.configPath, (c) => ({ ...c, service: { ...c.service, baseUrl: serviceUrl }, privacy: { audio: 'never' } }));
    await world.startAgent();
    const counts = await world.waitDrained(30_000);
    expect(counts.detections.uploaded).toBe(2);
    expect(counts.recordings).toMatchObject({ uploaded: 0, dropped: 2 });
    expect(await world.allSoundscapes()).toEqual([]);
    const detections = await world.allDetections();
    expect(detections).toHaveLength(2);
    for (const d of detections) expect(d.soundscape ?? null).toBeNull();
    // The sweep that dropped them may still be deleting: join it.
    await world.daemon!.housekeeping();
    expect(spoolFiles(world.dataDir).filter((f) => !f.startsWith('incoming'))).toEqual([]);
  }, 90_000);
});

/** A port nothing listens on (taken, then let go): the service is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function writeConfig(file: string, change: (c: { service: { baseUrl: string } } & Record<string, unknown>) => Record<string, unknown>): void {
  writeFileSync(file, JSON.stringify(change(JSON.parse(readFileSync(file, 'utf8')) as { service: { baseUrl: string } } & Record<string, unknown>), null, 2), { mode: 0o600 });
}
