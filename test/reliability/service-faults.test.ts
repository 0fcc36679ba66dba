import { afterEach, describe, expect, it } from 'vitest';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { until } from '../helpers/until.js';
import { planBacklog, startDaysAgo, writeBacklog } from './support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, expectedCounts, serviceHoldings, withQueue } from './support/exactly-once.js';
import { SEED, SOAK, scaled, seededRandom } from './support/soak.js';

/**
 * Scenario 2, service faults: the local service answers a share of requests with
 * 5xx (JSON and HTML gateway pages), 429 with Retry-After, never (timeouts) or
 * stores them and then drops the connection (commit-then-drop), while the agent
 * (in-process, the same `startDaemon` as `station-agent run`) drains a backlog. The
 * result must be the same as without faults: everything exactly once.
 */

let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const SPECS: [name: string, spec: string, recordings: number][] = [
  ['POST faults', '5xx=0.1,html=0.5,429=0.05,retry-after=1,timeout=0.03,drop=0.1', scaled(20, 150)],
  // Faults on the reads too: reconciliation's listings fail as well (slower: fewer in the short form).
  ['POST and GET faults', '5xx=0.1,html=0.5,429=0.05,retry-after=1,timeout=0.03,drop=0.15,methods=GET+POST', scaled(10, 150)],
];

describe('service faults: 5xx, HTML pages, 429 Retry-After, timeouts and commit-then-drop', () => {
  for (const [name, spec, recordings] of SPECS) {
    it(
      `${name} (${spec}): every detection and soundscape exactly once${SOAK ? ' (soak)' : ''}`,
      async () => {
        const started = Date.now();
        world = await createAgentWorld({
          emulator: { faults: spec, seed: SEED },
          // The shortest request timeout: timeouts resolve fast, and an unknown outcome is reconciled after twice that.
          config: { service: { timeoutMs: 1_000 }, upload: { backoffMaxMs: 1_000 } },
        });
        const expected = planBacklog({ count: recordings, startMs: startDaysAgo(3), random: seededRandom(SEED) });
        writeBacklog(world.inputDir, expected);
        const want = expectedCounts(expected);

        await world.startAgent();
        const counts = await waitAllUploaded(world, want, scaled(60_000, 400_000));
        const status = world.daemon!.uploader.status();
        await world.stopAgent();
        world.emulator.setFaults(null);

        expect(counts.recordings.uploaded).toBe(want.recordings);
        expect(counts.detections.uploaded).toBe(want.detections);
        expect(counts.detections.failed + counts.recordings.failed).toBe(0);
        const held = await serviceHoldings(world.client);
        expect(exactlyOnce(expected, held)).toEqual(EXACTLY_ONCE);
        expect(world.counts()).toEqual(counts);
        expect(withQueue(world.dataDir, (q) => q.integrityCheck())).toEqual({ ok: true, problems: [] });

        const lines = world.logLines.map((l) => JSON.parse(l) as { msg?: string; code?: string });
        const by = (re: RegExp) => lines.filter((l) => re.test(l.msg ?? '')).length;
        console.log(
          `service faults "${spec}" (seed ${SEED}): ${want.recordings} recordings / ${want.detections} detections in ` +
            `${Math.round((Date.now() - started) / 1000)} s; retries ${by(/will retry/)}, outcome unknown ${by(/outcome unknown/)}, ` +
            `ids adopted ${by(/id adopted/)}, circuit probes ${status.probes}, concurrency limit at the end ${status.concurrencyLimit}`,
        );
      },
      scaled(90_000, 600_000),
    );
  }
});

/** Waits until every expected item is uploaded (not only "not waiting": a failed item fails the test with its error). */
async function waitAllUploaded(world: AgentWorld, want: { recordings: number; detections: number }, timeoutMs: number) {
  const details = () => {
    const failed = world.daemon!.queue.db
      .prepare(`SELECT 'r' || id AS id, last_error FROM recordings WHERE state = 'failed' UNION ALL SELECT 'd' || id, last_error FROM detections WHERE state = 'failed' LIMIT 10`)
      .all();
    return `${JSON.stringify(world.counts())}\nfailed: ${JSON.stringify(failed)}\n` + world.logLines.slice(-30).join('\n');
  };
  return until(
    'every item uploaded',
    () => {
      const c = world.counts();
      if (c.recordings.failed + c.detections.failed > 0) throw new Error(`an item failed: ${details()}`);
      return c.recordings.uploaded === want.recordings && c.detections.uploaded === want.detections && c;
    },
    timeoutMs,
    details,
  );
}
