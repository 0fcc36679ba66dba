import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { RunningEmulator } from '@station-agent/emulator';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import { TOKEN } from './agent-world.js';
import { tempDir } from './paths.js';
import { until } from './until.js';
import { startAgentProcess, type AgentProcess } from '../reliability/support/agent-process.js';
import { planBacklog, startDaysAgo, writeBacklog, type ExpectedRecording } from '../reliability/support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, expectedCounts, queueCounts, serviceHoldings, waiting, withQueue } from '../reliability/support/exactly-once.js';
import { seededRandom } from '../reliability/support/soak.js';
import { startService, writeAgentConfig } from '../reliability/support/world.js';

/** Emulated arm64 runs several times slower than native code. */
export const SLOW_MS = 240_000;

export interface InstalledAgentSuite {
  readonly service: RunningEmulator;
  readonly client: ServiceClient;
  /** A fresh input folder, queue and config (`extra` merged over the test config) for one scenario. */
  scenario(name: string, options?: { baseUrl?: string; extra?: Record<string, unknown> }): { inputDir: string; dataDir: string; configPath: string };
  /** Starts the agent process; the suite kills it after the test. */
  start(configPath: string): AgentProcess;
  /** Waits until the queue has uploaded `want` and nothing waits. */
  drained(dataDir: string, want: { recordings: number; detections: number }, agent: AgentProcess): Promise<unknown>;
  /**
   * The scenario both installed trees prove: 8 recordings of 2 detections uploaded exactly once
   * across a SIGKILL (after the first upload) and a restart. Returns the two agent processes.
   */
  exactlyOnceAcrossKill(options: { seed: number; extra?: Record<string, unknown> }): Promise<{ first: AgentProcess; second: AgentProcess; expected: ExpectedRecording[] }>;
}

/**
 * For the tests of an agent installed elsewhere than this tree (test/arm64: bin/install run
 * under qemu; test/package: the Debian package): the local service in this test process, its
 * client, a folder per scenario under one temp folder, and the agent process killed after each
 * test. Registers the hooks: call it at a test file's top level.
 */
export function installedAgentSuite(prefix: string, agentEnv: Record<string, string>): InstalledAgentSuite {
  const { dir: root, cleanup } = tempDir(prefix);
  let service: RunningEmulator | undefined;
  let client: ServiceClient | undefined;
  let agent: AgentProcess | undefined;

  beforeAll(async () => {
    service = await startService();
    client = createServiceClient({ baseUrl: service.url, token: TOKEN });
  });
  afterEach(async () => {
    await agent?.kill('SIGKILL');
    agent = undefined;
  });
  afterAll(async () => {
    await client?.close();
    await service?.close();
    cleanup();
  });

  const suite: InstalledAgentSuite = {
    get service() {
      return service!;
    },
    get client() {
      return client!;
    },
    scenario(name, options = {}) {
      const dir = path.join(root, name);
      const inputDir = path.join(dir, 'input');
      const dataDir = path.join(dir, 'data');
      mkdirSync(inputDir, { recursive: true });
      const configPath = writeAgentConfig(path.join(dir, 'config.json'), { baseUrl: options.baseUrl ?? service!.url, inputDir, dataDir, extra: options.extra });
      return { inputDir, dataDir, configPath };
    },
    start(configPath) {
      agent = startAgentProcess(configPath, { env: agentEnv });
      return agent;
    },
    drained(dataDir, want, a) {
      return until(
        'queue drained',
        () =>
          withQueue(dataDir, (q) => {
            const c = queueCounts(q);
            const w = waiting(c);
            return w.recordings + w.detections === 0 && (c.recordings.uploaded ?? 0) === want.recordings && (c.detections.uploaded ?? 0) === want.detections ? c : undefined;
          }),
        SLOW_MS,
        () => a.lines.slice(-30).join('\n'),
      );
    },
    async exactlyOnceAcrossKill({ seed, extra }) {
      const { inputDir, dataDir, configPath } = suite.scenario(`exactly-once-${seed}`, { extra });
      const expected = planBacklog({ count: 8, startMs: startDaysAgo(1), random: seededRandom(seed), detectionsPerRecording: 2 });
      writeBacklog(inputDir, expected);

      const first = suite.start(configPath);
      await first.waitForLine(/"msg":"station-agent running"/, SLOW_MS);
      // Killed once something is uploaded and before everything is.
      await until('a first upload', () => withQueue(dataDir, (q) => ((queueCounts(q).detections.uploaded ?? 0) > 0 ? true : undefined)), SLOW_MS);
      expect((await first.kill('SIGKILL')).signal).toBe('SIGKILL');
      withQueue(dataDir, (q) => expect(q.integrityCheck()).toEqual({ ok: true, problems: [] }));

      const second = suite.start(configPath);
      await suite.drained(dataDir, expectedCounts(expected), second);
      expect(await second.kill('SIGTERM'), second.lines.slice(-20).join('\n')).toEqual({ code: 0, signal: null });
      expect(exactlyOnce(expected, await serviceHoldings(client!))).toEqual(EXACTLY_ONCE);
      return { first, second, expected };
    },
  };
  return suite;
}
