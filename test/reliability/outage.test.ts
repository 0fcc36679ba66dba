import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '@station-agent/emulator';
import { createAgentWorld, REAL_LABELS, type AgentWorld } from '../helpers/agent-world.js';
import { tempDir } from '../helpers/paths.js';
import { planBacklog, startDaysAgo, writeBacklog } from './support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, expectedCounts, serviceHoldings, withQueue } from './support/exactly-once.js';
import { SEED, SOAK, scaled, seededRandom, sleep } from './support/soak.js';
import { until } from '../helpers/until.js';
import { STATION } from './support/world.js';

/**
 * Scenario 3, outage: the service goes away in the middle of a backlog (its port
 * answers every connection by closing it, as a dead backend behind a proxy does),
 * stays away for a while, and comes back on the same port with the same database.
 * During the outage the agent must back off to a bounded number of attempts (the
 * circuit breaker probes once per `upload.probeIntervalSec`), not spin; afterwards
 * the backlog, including what arrived during the outage, drains exactly once.
 */
const RECORDINGS = scaled(16, 80);
const DURING_OUTAGE = scaled(4, 20);
const OUTAGE_MS = scaled(6_000, 45_000);
const PROBE_INTERVAL_SEC = 2;
const CONCURRENCY = 4;
/** Consecutive service-down failures that open the circuit (the breaker's default). */
const FAILURE_THRESHOLD = 3;

let world: AgentWorld | undefined;
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  await world?.close();
  world = undefined;
  while (cleanups.length) await cleanups.pop()!();
});

/** Listens on `port` and closes every connection at once, counting them. */
async function deadPort(port: number): Promise<{ server: Server; connections: () => number }> {
  let n = 0;
  const server = createServer((socket) => {
    n++;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { server, connections: () => n };
}

describe('outage: the service is down for a while, then back', () => {
  it(
    `sends a bounded number of requests during the outage and drains everything exactly once afterwards${SOAK ? ' (soak)' : ''}`,
    async () => {
      const { dir, cleanup } = tempDir('reliability-outage-service-');
      cleanups.push(cleanup);
      const db = path.join(dir, 'service.db');
      world = await createAgentWorld({
        emulator: { db },
        config: { service: { timeoutMs: 1_500 }, upload: { concurrency: CONCURRENCY, probeIntervalSec: PROBE_INTERVAL_SEC } },
      });
      const random = seededRandom(SEED);
      const startMs = startDaysAgo(1);
      const expected = planBacklog({ count: RECORDINGS, startMs, random });
      writeBacklog(world.inputDir, expected);
      const port = world.emulator.port;

      await world.startAgent();
      const daemon = world.daemon!;
      // Let the drain get going, so the outage cuts into it.
      await until('first uploads', () => (world!.counts().recordings.uploaded >= 3 ? true : undefined), 20_000);

      await world.emulator.close();
      const dead = await deadPort(port);
      cleanups.push(() => new Promise<void>((resolve) => dead.server.close(() => resolve())));
      const outageStarted = Date.now();
      // The station keeps recording during the outage.
      const more = planBacklog({ count: DURING_OUTAGE, firstIndex: RECORDINGS, startMs, random });
      writeBacklog(world.inputDir, more);
      expected.push(...more);
      const circuitStates = new Set<string>();
      while (Date.now() - outageStarted < OUTAGE_MS) {
        circuitStates.add(daemon.snapshot().uploader.circuit);
        await sleep(200);
      }
      const outageMs = Date.now() - outageStarted;
      await new Promise<void>((resolve) => dead.server.close(() => resolve()));
      const attempts = dead.connections();
      const uploadedBefore = world.counts();

      world.emulator = await startEmulator({ port, db, stations: [STATION], labels: REAL_LABELS });
      const want = expectedCounts(expected);
      const counts = await until(
        'backlog drained after the outage',
        () => {
          const c = world!.counts();
          return c.recordings.uploaded === want.recordings && c.detections.uploaded === want.detections ? c : undefined;
        },
        scaled(60_000, 300_000),
        () => `${JSON.stringify(world!.counts())}\n${world!.logLines.slice(-30).join('\n')}`,
      );
      const probes = daemon.uploader.status().probes;
      await world.stopAgent();

      // One probe per interval while the circuit is open, plus what was in flight
      // when the service went away and the failures it takes to open the circuit.
      const bound = Math.ceil(outageMs / (PROBE_INTERVAL_SEC * 1000)) + CONCURRENCY + FAILURE_THRESHOLD + 2;
      console.log(
        `outage (seed ${SEED}): ${Math.round(outageMs / 1000)} s with probeIntervalSec ${PROBE_INTERVAL_SEC}, concurrency ${CONCURRENCY}: ` +
          `${attempts} connection attempts during the outage (bound ${bound}); circuit states seen ${[...circuitStates].join(', ')}; ` +
          `circuit probes since start ${probes}; uploaded when the service came back: ${uploadedBefore.recordings.uploaded} recordings / ` +
          `${uploadedBefore.detections.uploaded} detections of ${want.recordings} / ${want.detections}`,
      );
      expect(attempts).toBeGreaterThan(0);
      expect(attempts).toBeLessThanOrEqual(bound);
      expect(circuitStates.has('open')).toBe(true);

      expect(counts.recordings.failed + counts.detections.failed).toBe(0);
      const held = await serviceHoldings(world.client);
      expect(exactlyOnce(expected, held)).toEqual(EXACTLY_ONCE);
      expect(withQueue(world.dataDir, (q) => q.integrityCheck())).toEqual({ ok: true, problems: [] });
    },
    scaled(90_000, 600_000),
  );
});
