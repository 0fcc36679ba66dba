import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import type { RunningEmulator } from '@station-agent/emulator';
import { TOKEN } from '../helpers/agent-world.js';
import { buildCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { logRecords, startAgentProcess, type AgentProcess } from './support/agent-process.js';
import { planBacklog, startDaysAgo, writeBacklog, type ExpectedRecording } from './support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, expectedCounts, queueCounts, serviceHoldings, total, waiting, withQueue } from './support/exactly-once.js';
import { SEED, SOAK, scaled, seededRandom, sleep } from './support/soak.js';
import { until } from '../helpers/until.js';
import { startService, writeAgentConfig } from './support/world.js';

/**
 * Scenario 1, crash: `station-agent run` as its own process, killed with SIGKILL at
 * seeded random points while it drains a backlog (and while new recordings arrive),
 * then started again, with service faults in some cycles. Commit-then-drop is the
 * fault that breeds duplicates: the service stored the item, the agent never heard.
 * At the end, one clean run drains the rest: the service must hold every detection
 * and soundscape exactly once, and the queue database must be intact.
 */
const CYCLES = scaled(4, 24);
const INITIAL = scaled(24, 40);
const BATCH = scaled(4, 8);

/** Faults of some cycles; null is a cycle without faults. */
const CYCLE_FAULTS: (string | null)[] = [
  null,
  'drop=0.3',
  'drop=0.15,5xx=0.1,html=0.5',
  'timeout=0.1,drop=0.15',
  '5xx=0.15,html=0.5,429=0.05,retry-after=1',
];

const { dir: root, cleanup } = tempDir('reliability-crash-');
const inputDir = path.join(root, 'input');
const dataDir = path.join(root, 'data');
const configPath = path.join(root, 'config.json');
let service: RunningEmulator;
let client: ServiceClient;
let agent: AgentProcess | undefined;

beforeAll(async () => {
  await buildCli();
  mkdirSync(inputDir, { recursive: true });
  service = await startService();
  client = createServiceClient({ baseUrl: service.url, token: TOKEN });
  writeAgentConfig(configPath, { baseUrl: service.url, inputDir, dataDir, extra: { log: { level: 'info' } } });
}, 180_000);

afterAll(async () => {
  await agent?.kill('SIGKILL');
  await client?.close();
  await service?.close();
  cleanup();
});

describe('crash: the agent is killed (SIGKILL) at random points while draining a backlog', () => {
  it(
    `loses and duplicates nothing over ${CYCLES} kill cycles${SOAK ? ' (soak)' : ''}`,
    async () => {
      const random = seededRandom(SEED);
      const started = Date.now();
      const startMs = startDaysAgo(2);
      const expected: ExpectedRecording[] = planBacklog({ count: INITIAL, startMs, random, detectionsPerRecording: 3 });
      writeBacklog(inputDir, expected);

      const cycles: string[] = [];
      let killedBeforeRunning = 0;
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        if (cycle > 0 && random() < scaled(0.5, 0.7)) {
          // New output arrives between runs, so some kills land in ingest too.
          const batch = planBacklog({ count: BATCH, firstIndex: expected.length, startMs, random, detectionsPerRecording: 3 });
          writeBacklog(inputDir, batch);
          expected.push(...batch);
        }
        const faults = CYCLE_FAULTS[Math.floor(random() * CYCLE_FAULTS.length)];
        service.setFaults(faults);
        const early = random() < 0.2;
        const delayMs = Math.round(early ? 150 + random() * 600 : random() * 1_800);
        agent = startAgentProcess(configPath);
        if (!early) await agent.waitForLine(/"msg":"station-agent running"/);
        await sleep(delayMs);
        const exit = await agent.kill('SIGKILL');
        expect(exit.signal, agent.lines.slice(-20).join('\n')).toBe('SIGKILL');
        if (early && !agent.lines.some((l) => l.includes('"msg":"station-agent running"'))) killedBeforeRunning++;
        const c = withQueue(dataDir, (q) => queueCounts(q));
        cycles.push(
          `cycle ${cycle}: faults ${faults ?? 'none'}, killed ${early ? `${delayMs} ms after spawn` : `${delayMs} ms after running`}; ` +
            `queue: recordings ${JSON.stringify(c.recordings)}, detections ${JSON.stringify(c.detections)}`,
        );
        // Every kill leaves a database that opens and checks clean.
        withQueue(dataDir, (q) => expect(q.integrityCheck()).toEqual({ ok: true, problems: [] }));
      }

      // The last run: no faults, no kill; it drains everything.
      service.setFaults(null);
      agent = startAgentProcess(configPath);
      await agent.waitForLine(/"msg":"station-agent running"/);
      const want = expectedCounts(expected);
      const drained = await until(
        'queue drained',
        () =>
          withQueue(dataDir, (q) => {
            const c = queueCounts(q);
            const w = waiting(c);
            const done = w.recordings + w.detections === 0 && total(c.recordings) === want.recordings && total(c.detections) === want.detections;
            return done ? c : undefined;
          }),
        scaled(60_000, 300_000),
        () => `${JSON.stringify(withQueue(dataDir, (q) => queueCounts(q)))}\n${agent!.lines.slice(-40).join('\n')}`,
      );
      const finalRun = agent;
      const stop = await finalRun.kill('SIGTERM');
      expect(stop, finalRun.lines.slice(-20).join('\n')).toEqual({ code: 0, signal: null });

      expect(drained.recordings.uploaded).toBe(want.recordings);
      expect(drained.detections.uploaded).toBe(want.detections);
      withQueue(dataDir, (q) => expect(q.integrityCheck()).toEqual({ ok: true, problems: [] }));
      const held = await serviceHoldings(client);
      expect(exactlyOnce(expected, held)).toEqual(EXACTLY_ONCE);
      expect(held.detections).toHaveLength(want.detections);
      expect(held.soundscapes).toHaveLength(want.recordings);

      // Spool files no queue row points to (a kill between two steps of a file's life leaves one behind).
      const referenced = withQueue(dataDir, (q) => new Set((q.db.prepare('SELECT spool_path FROM recordings WHERE spool_path IS NOT NULL').pluck().all() as string[]).map((p) => path.basename(p))));
      const orphans = readdirSync(path.join(dataDir, 'spool')).filter((f) => f !== 'incoming' && !referenced.has(f));
      const adopted = logRecords(finalRun.lines).filter((r) => String(r.msg).includes('id adopted')).length;
      console.log(
        [
          `crash scenario (seed ${SEED}): ${CYCLES} SIGKILL cycles (${killedBeforeRunning} before the agent was running), ` +
            `${want.recordings} recordings / ${want.detections} detections, ${Math.round((Date.now() - started) / 1000)} s; ` +
            `ids adopted by reconciliation in the final run: ${adopted}; spool files no queue row points to: ${orphans.length}${orphans.length ? ` (${orphans.join(' ')})` : ''}`,
          ...cycles,
        ].join('\n'),
      );
    },
    scaled(180_000, 1_200_000),
  );
});
