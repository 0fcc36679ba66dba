import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openQueue } from '../../src/queue/index.js';
import { SPECIES_GATE } from '../../src/queue/species-gate.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { buildCli } from '../helpers/cli.js';
import { REPO_ROOT, realFixture } from '../helpers/paths.js';
import { until } from '../helpers/until.js';
import { startAgentProcess } from '../reliability/support/agent-process.js';
import { writeResultsCsv, type Row } from './support.js';

/**
 * Issue 19 item 7: a daemon that ran for a while with the clock at 2100 dropped the
 * species gate's holds (and pruned the sightings that count towards the gate). The
 * clock is faked for the daemon's process only, through its environment.
 */

const MAGPIE_WAV = realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav');
const FAKE_CLOCK = pathToFileURL(path.join(REPO_ROOT, 'test/helpers/fake-clock.mjs')).href;

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function addRecording(base: string, rows: readonly Row[]): void {
  copyFileSync(MAGPIE_WAV, path.join(world!.inputDir, `${base}.wav`));
  writeResultsCsv(path.join(world!.inputDir, `${base}.BirdNET.results.csv`), `${base}.wav`, rows);
}

const describeWorld = () => (world ? world.logLines.slice(-30).join('\n') : '');

/** The agent as a process with its wall clock at 2100 (test/helpers/fake-clock.mjs, through its environment). */
function agentAt2100(configPath: string) {
  return startAgentProcess(configPath, {
    env: { NODE_OPTIONS: `--import=${FAKE_CLOCK}`, STATION_AGENT_TEST_CLOCK_AT: '2100-01-01T06:00:00Z' },
  });
}

/** With the right clock, two more magpies that morning reach the gate's three: all three go to the service. */
async function twoMoreMagpiesLetAllThreeGo(): Promise<void> {
  await world!.startAgent();
  addRecording('20240224_070000', [[0, 'Pica pica', 'Eurasian Magpie', 0.8]]);
  addRecording('20240224_080000', [[0, 'Pica pica', 'Eurasian Magpie', 0.85]]);
  await until('three magpies at the service', async () => (await world!.allDetections()).length === 3, 30_000, describeWorld);
}

describe('species gate and a clock jumped to 2100', () => {
  it('keeps the held detection and its sighting through a run with the clock at 2100; the species still reaches the gate', async () => {
    await buildCli();
    world = await createAgentWorld({ config: { filters: { minDetectionsPer24h: 3 } } });
    addRecording('20240224_060000', [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);
    await world.startAgent();
    await until('the magpie held by the gate', () => world!.counts().recordings.pending === 1, 20_000, describeWorld);
    await world.stopAgent();

    // The daemon runs with the clock at 2100. Its start-up sweep (expiry of gate holds)
    // runs before it logs "running".
    const agent = agentAt2100(world.configPath);
    try {
      await agent.waitForLine(/station-agent running/, 30_000);
      await agent.waitForLine(/more than a day ahead of the queue's last known time/, 30_000);
    } finally {
      await agent.kill('SIGTERM');
    }
    expect((await agent.exited).code).toBe(0);
    const q = openQueue(path.join(world.dataDir, 'queue.db'));
    try {
      expect(q.stmt('SELECT state, hold_reason FROM detections').all()).toEqual([{ state: 'pending', hold_reason: SPECIES_GATE }]);
      expect(q.stmt('SELECT COUNT(*) AS n FROM species_sightings').get()).toEqual({ n: 1 });
    } finally {
      q.close();
    }

    // The right clock again: two more magpies that morning, and the gate lets all three go.
    await twoMoreMagpiesLetAllThreeGo();
  }, 120_000);

  it('a recording ingested while the clock is at 2100 is due, and its gate hold expires, by the right clock once it is back', async () => {
    await buildCli();
    world = await createAgentWorld({ config: { filters: { minDetectionsPer24h: 3 } } });
    // A first start with the right clock, so the queue knows the time.
    await world.startAgent();
    await world.stopAgent();

    const agent = agentAt2100(world.configPath);
    try {
      await agent.waitForLine(/station-agent running/, 30_000);
      addRecording('20240224_060000', [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);
      await until('the magpie queued', () => world!.counts().recordings.pending === 1, 20_000, describeWorld);
    } finally {
      await agent.kill('SIGTERM');
    }
    expect((await agent.exited).code).toBe(0);
    // Stamped by the expiry clock, not the jumped wall clock: with 2100 in them the
    // recording would not be due, nor the hold expire, for 75 years.
    const latest = Date.now() + 2 * 24 * 3600_000;
    const q = openQueue(path.join(world.dataDir, 'queue.db'));
    try {
      for (const table of ['recordings', 'detections']) {
        const rows = q.stmt(`SELECT created_at, next_attempt_at FROM ${table}`).all() as { created_at: number; next_attempt_at: number }[];
        expect(rows).toHaveLength(1);
        expect(rows[0].created_at).toBeLessThan(latest);
        expect(rows[0].next_attempt_at).toBeLessThan(latest);
      }
      const sightings = q.stmt('SELECT expires_at FROM species_sightings').all() as { expires_at: number }[];
      expect(sightings).toHaveLength(1);
      expect(sightings[0].expires_at).toBeLessThan(latest);
    } finally {
      q.close();
    }

    // The right clock again: two more magpies that morning, and the gate lets all three go.
    await twoMoreMagpiesLetAllThreeGo();
  }, 120_000);

  it('keeps the held detection through two forward steps of 20 h within a day: steps add up (issue 35)', async () => {
    world = await createAgentWorld({ config: { filters: { minDetectionsPer24h: 3 } } });
    let ahead = 0;
    const daemon = await world.startAgent({ now: () => Date.now() + ahead });
    addRecording('20240224_060000', [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);
    await until('the magpie held by the gate', () => world!.counts().recordings.pending === 1, 20_000, describeWorld);
    for (const step of [20, 40]) {
      ahead = step * 3_600_000;
      await daemon.housekeeping();
    }
    const q = openQueue(path.join(world.dataDir, 'queue.db'));
    try {
      expect(q.stmt('SELECT state, hold_reason FROM detections').all()).toEqual([{ state: 'pending', hold_reason: SPECIES_GATE }]);
    } finally {
      q.close();
    }
    expect(world.logLines.filter((l) => l.includes('more than a day ahead'))).toHaveLength(1);
  }, 60_000);

  it('a retry scheduled while the clock is at 2100 is due by the right clock once it is back', async () => {
    await buildCli();
    world = await createAgentWorld();
    await world.startAgent();
    await world.stopAgent();
    // The service unreachable during the jumped run: every try fails and is put off.
    const good = readFileSync(world.configPath, 'utf8');
    const cfg = JSON.parse(good) as { service: { baseUrl: string } };
    writeFileSync(world.configPath, JSON.stringify({ ...cfg, service: { ...cfg.service, baseUrl: 'http://127.0.0.1:9' } }), { mode: 0o600 });
    const agent = agentAt2100(world.configPath);
    const tried = () => {
      const q = openQueue(path.join(world!.dataDir, 'queue.db'));
      try {
        return (q.stmt('SELECT (SELECT COUNT(*) FROM detections WHERE attempts > 0) + (SELECT COUNT(*) FROM recordings WHERE attempts > 0) AS n').get() as { n: number }).n > 0;
      } finally {
        q.close();
      }
    };
    try {
      await agent.waitForLine(/station-agent running/, 30_000);
      addRecording('20240224_060000', [[0, 'Pica pica', 'Eurasian Magpie', 0.9]]);
      await until('a failed try put off', tried, 30_000, () => agent.lines.slice(-30).join('\n'));
    } finally {
      await agent.kill('SIGTERM');
    }
    expect((await agent.exited).code).toBe(0);
    writeFileSync(world.configPath, good, { mode: 0o600 });
    await world.startAgent();
    await until('the magpie at the service', async () => (await world!.allDetections()).length === 1, 30_000, describeWorld);
  }, 120_000);
});
