import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '@station-agent/emulator';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import { TOKEN } from '../helpers/agent-world.js';
import { buildCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { until } from '../helpers/until.js';
import { logRecords, startAgentProcess, type AgentProcess } from '../reliability/support/agent-process.js';
import { planBacklog, startDaysAgo, writeBacklog, type ExpectedRecording } from '../reliability/support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, expectedCounts, queueCounts, serviceHoldings, total, waiting, withQueue } from '../reliability/support/exactly-once.js';
import { SEED, seededRandom, sleep } from '../reliability/support/soak.js';
import { startService, writeAgentConfig } from '../reliability/support/world.js';
import { startHoldRelay, type HoldRelay } from './hold-relay.js';
import { mountLazyFs, type LazyFs } from './lazyfs.js';

/**
 * Power cuts, for real (`npm run test:powercut`): the agent's dataDir on LazyFS, which
 * drops every write not fsynced when told to. Each cut stops the agent's process group
 * (SIGSTOP), drops what was not fsynced, kills it (SIGKILL), and starts a fresh agent on
 * what is left, as a station does when the power returns. Cuts land at random moments
 * (some before the agent is running) and, a third of them, while a soundscape's request is
 * in flight and already stored by the service (a relay holds its answer). New recordings
 * arrive before every start. At the end one run drains the rest: the service must hold
 * every soundscape and detection exactly once, and every start must have succeeded.
 */
const CUTS = Number(process.env.POWERCUT_CUTS ?? 24);
const INITIAL = 16;
const BATCH = 4;
const LAZYFS = process.env.LAZYFS ?? '';

const { dir: root, cleanup } = tempDir('powercut-');
const inputDir = path.join(root, 'input');
const configPath = path.join(root, 'config.json');
let fs: LazyFs | undefined;
let dataDir: string;
let service: RunningEmulator;
let relay: HoldRelay;
let client: ServiceClient;
let agent: AgentProcess | undefined;

beforeAll(async () => {
  if (!LAZYFS) throw new Error('LAZYFS is not set: run `npm run test:powercut` (scripts/test-powercut.sh builds LazyFS)');
  await buildCli();
  mkdirSync(inputDir, { recursive: true });
  fs = await mountLazyFs(LAZYFS, path.join(root, 'lazyfs'));
  dataDir = path.join(fs.mnt, 'data');
  service = await startService();
  relay = await startHoldRelay(service.url);
  client = createServiceClient({ baseUrl: service.url, token: TOKEN });
  writeAgentConfig(configPath, { baseUrl: relay.url, inputDir, dataDir, extra: { log: { level: 'info' } } });
}, 600_000);

afterAll(async () => {
  if (agent) process.kill(-agent.pid, 'SIGKILL');
  await agent?.exited;
  await client?.close();
  await relay?.close();
  await service?.close();
  await fs?.unmount();
  cleanup();
});

/** The agent in a process group of its own (setsid), so a cut stops and kills all of it. */
const startAgent = () => startAgentProcess(configPath, { wrap: (args) => ({ command: 'setsid', args }) });

/** `PRAGMA integrity_check` of what survived the cut: a copy of the files below the mount. */
function survivorIntegrity(lowerData: string, scratch: string): string {
  if (!existsSync(path.join(lowerData, 'queue.db'))) return 'ok';
  mkdirSync(scratch, { recursive: true });
  for (const f of ['queue.db', 'queue.db-wal']) {
    if (existsSync(path.join(lowerData, f))) copyFileSync(path.join(lowerData, f), path.join(scratch, f));
  }
  const db = new Database(path.join(scratch, 'queue.db'));
  try {
    return (db.pragma('integrity_check', { simple: true }) as string) ?? 'no answer';
  } finally {
    db.close();
  }
}

describe('power cuts: LazyFS holds the dataDir and drops what was not fsynced', () => {
  it(`loses, duplicates and fails to start nothing over ${CUTS} cuts`, async () => {
    const random = seededRandom(SEED);
    const started = Date.now();
    const startMs = startDaysAgo(2);
    const expected: ExpectedRecording[] = planBacklog({ count: INITIAL, startMs, random, detectionsPerRecording: 3 });
    writeBacklog(inputDir, expected);
    const log: string[] = [];
    let duringRequests = 0;
    let failedStarts = 0;
    for (let cut = 0; cut < CUTS; cut++) {
      const batch = planBacklog({ count: BATCH, firstIndex: expected.length, startMs, random, detectionsPerRecording: 3 });
      writeBacklog(inputDir, batch);
      expected.push(...batch);
      agent = startAgent();
      const inRequest = cut % 3 === 0;
      const early = !inRequest && random() < 0.2;
      let when: string;
      if (early) {
        const ms = Math.round(150 + random() * 600);
        await sleep(ms);
        when = `${ms} ms after spawn`;
      } else {
        try {
          await agent.waitForLine(/"msg":"station-agent running"/, 60_000);
        } catch (err) {
          failedStarts++;
          log.push(`cut ${cut}: the start failed: ${String(err)}`);
        }
        if (inRequest) {
          const held = await relay.holdNextSoundscape(20_000);
          if (held) duringRequests++;
          when = held ? `while a soundscape's answer was held (${relay.held} answers held)` : 'after 20 s without a soundscape request';
        } else {
          const ms = Math.round(random() * 2_000);
          await sleep(ms);
          when = `${ms} ms after running`;
        }
      }
      // The cut: everything stops at once, what was not fsynced is gone, then the process.
      process.kill(-agent.pid, 'SIGSTOP');
      await fs!.clearCache();
      process.kill(-agent.pid, 'SIGKILL');
      const exit = await agent.exited;
      relay.release();
      if (exit.signal !== 'SIGKILL') {
        failedStarts++;
        log.push(`cut ${cut}: the agent had exited by itself (${JSON.stringify(exit)}):\n${agent.lines.slice(-20).join('\n')}`);
      }
      const integrity = survivorIntegrity(path.join(fs!.lower, 'data'), path.join(root, `survivor-${cut}`));
      expect(integrity, `cut ${cut}`).toBe('ok');
      log.push(`cut ${cut}: ${when}`);
    }

    // The power stays on: the last run drains everything.
    agent = startAgent();
    await agent.waitForLine(/"msg":"station-agent running"/, 60_000);
    const want = expectedCounts(expected);
    const drained = await until(
      'the queue drained',
      () =>
        withQueue(dataDir, (q) => {
          const c = queueCounts(q);
          const w = waiting(c);
          return w.recordings + w.detections === 0 && total(c.recordings) === want.recordings && total(c.detections) === want.detections ? c : undefined;
        }),
      300_000,
      () => `${JSON.stringify(withQueue(dataDir, (q) => queueCounts(q)))}\n${agent!.lines.slice(-40).join('\n')}`,
    );
    const finalRun = agent;
    process.kill(finalRun.pid, 'SIGTERM');
    expect(await finalRun.exited, finalRun.lines.slice(-20).join('\n')).toEqual({ code: 0, signal: null });
    agent = undefined;

    const held = await serviceHoldings(client);
    const report = exactlyOnce(expected, held);
    const adopted = logRecords(finalRun.lines).filter((r) => String(r.msg).includes('id adopted')).length;
    console.log(
      [
        `power cuts (seed ${SEED}): ${CUTS} cuts, ${duringRequests} while a soundscape's request was in flight and stored; ` +
          `${want.recordings} recordings / ${want.detections} detections; failed starts ${failedStarts}; ` +
          `missing ${report.missing.length}, duplicated ${report.duplicated.length}; ids adopted in the final run ${adopted}; ${Math.round((Date.now() - started) / 1000)} s`,
        ...log,
      ].join('\n'),
    );
    expect(failedStarts).toBe(0);
    expect(duringRequests).toBeGreaterThanOrEqual(Math.ceil(CUTS / 3));
    expect(report).toEqual(EXACTLY_ONCE);
    expect(drained.recordings.uploaded).toBe(want.recordings);
    expect(drained.detections.uploaded).toBe(want.detections);
    withQueue(dataDir, (q) => expect(q.integrityCheck()).toEqual({ ok: true, problems: [] }));
  }, 1_200_000);
});
