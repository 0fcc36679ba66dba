import { copyFileSync, readFileSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { realFixture } from '../helpers/paths.js';
import { planBacklog, startDaysAgo, writeBacklog, type ExpectedRecording } from './support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, expectedCounts, serviceHoldings } from './support/exactly-once.js';
import { SEED, seededRandom } from './support/soak.js';

/**
 * The service's drift: every answer of the local service comes in the shapes the real
 * service's answers have had over time (ids as digit strings, `duration` as a float or
 * a string, unknown fields, `extension: null`, no `success` on a 201; see the `drift`
 * fault in docs/EMULATOR.md), on the reads too, and a share of the posts is stored and
 * then cut off so that the agent has to reconcile through the drifted listings. The
 * agent (in-process, the same `startDaemon` as `station-agent run`) must still put
 * every detection and soundscape there exactly once.
 */

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const MIN_CONFIDENCE = 0.15;
const REAL = 'birdnet-analyzer_ea464544_2022-03-02';
/** The real recording has no time in its name: its start is its mtime minus its 10 s. */
const REAL_START_MS = Date.parse('2025-06-01T10:00:00.000Z');

/** The real analyzer's result rows above the threshold, as the oracle expects them. */
function realRecording(): ExpectedRecording {
  const [, ...lines] = readFileSync(path.join(realFixture(REAL), 'soundscape.BirdNET.results.csv'), 'utf8').split(/\r?\n/).filter(Boolean);
  const detections = lines
    .map((l) => l.split(','))
    .filter((c) => Number(c[4]) >= MIN_CONFIDENCE)
    .map(([start, end, scientificName, commonName, confidence]) => ({
      timestampMs: REAL_START_MS + Number(start) * 1000,
      scientificName,
      commonName,
      startS: Number(start),
      endS: Number(end),
      confidence: Number(confidence),
    }));
  return { base: 'soundscape', startMs: REAL_START_MS, durationS: 10, detections };
}

describe('service drift', () => {
  it('every answer drifted, reads included, with commit-then-drop: every detection and soundscape exactly once', async () => {
    const spec = 'drift=1,drop=0.15,methods=GET+POST';
    world = await createAgentWorld({
      emulator: { faults: spec, seed: SEED },
      config: { input: { minConfidence: MIN_CONFIDENCE }, service: { timeoutMs: 1_000 }, upload: { backoffMaxMs: 1_000 } },
    });
    const generated = planBacklog({ count: 8, startMs: startDaysAgo(2), random: seededRandom(SEED) });
    writeBacklog(world.inputDir, generated);
    const wav = path.join(world.inputDir, 'soundscape.wav');
    copyFileSync(path.join(realFixture(REAL), 'soundscape.wav'), wav);
    const end = new Date(REAL_START_MS + 10_000);
    utimesSync(wav, end, end);
    copyFileSync(path.join(realFixture(REAL), 'soundscape.BirdNET.results.csv'), path.join(world.inputDir, 'soundscape.BirdNET.results.csv'));
    const expected = [...generated, realRecording()];
    const want = expectedCounts(expected);

    await world.startAgent();
    const counts = await world.waitDrained(120_000);
    await world.stopAgent();
    world.emulator.setFaults(null);

    expect(counts.recordings).toMatchObject({ uploaded: want.recordings, failed: 0, dropped: 0 });
    expect(counts.detections).toMatchObject({ uploaded: want.detections, failed: 0, dropped: 0 });
    const held = await serviceHoldings(world.client);
    expect(exactlyOnce(expected, held)).toEqual(EXACTLY_ONCE);
    // Some posts were cut off after being stored, so the agent reconciled through drifted listings;
    // no drifted answer was taken for a refusal.
    const lines = world.logLines.map((l) => JSON.parse(l) as { msg?: string; code?: string; err?: { code?: string } });
    expect(lines.filter((l) => /outcome unknown/.test(l.msg ?? '')).length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.code === 'ERR_SERVICE_REJECTED' || l.err?.code === 'ERR_SERVICE_REJECTED')).toEqual([]);
  }, 180_000);
});
