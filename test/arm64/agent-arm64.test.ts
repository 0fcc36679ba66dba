import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '@station-agent/emulator';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import { AGENT_CLI, AGENT_NODE, parseJson, runCli } from '../helpers/cli.js';
import { REPO_ROOT, realFixture, tempDir } from '../helpers/paths.js';
import { TOKEN } from '../helpers/agent-world.js';
import { logRecords, startAgentProcess, type AgentProcess } from '../reliability/support/agent-process.js';
import { planBacklog, startDaysAgo, writeBacklog } from '../reliability/support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, expectedCounts, queueCounts, serviceHoldings, waiting, withQueue } from '../reliability/support/exactly-once.js';
import { seededRandom } from '../reliability/support/soak.js';
import { until } from '../helpers/until.js';
import { startService, writeAgentConfig } from '../reliability/support/world.js';

/**
 * `npm run test:arm64` (scripts/test-arm64.sh): the agent installed by bin/install, run
 * as an arm64 process under qemu-aarch64 (STATION_AGENT_NODE, STATION_AGENT_CLI), against
 * the local service in this (x86) test process. STATION_AGENT_ARM64_BIN holds the arm64
 * `flac` (through qemu), put first on the agent's PATH.
 */
const ARM64_BIN = process.env.STATION_AGENT_ARM64_BIN;
if (!process.env.STATION_AGENT_NODE || !process.env.STATION_AGENT_CLI || !ARM64_BIN) {
  throw new Error('test/arm64 runs through npm run test:arm64 (scripts/test-arm64.sh), which sets STATION_AGENT_NODE, STATION_AGENT_CLI and STATION_AGENT_ARM64_BIN');
}
const agentEnv = { PATH: `${ARM64_BIN}:${process.env.PATH}` };
/** Emulated arm64 runs several times slower than native code. */
const SLOW_MS = 240_000;

const { dir: root, cleanup } = tempDir('arm64-');
let service: RunningEmulator;
let client: ServiceClient;
let agent: AgentProcess | undefined;
let run = 0;

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

/** A fresh input folder, queue and config for one scenario. */
function scenario(extra: Record<string, unknown>) {
  const dir = path.join(root, `run-${++run}`);
  const inputDir = path.join(dir, 'input');
  const dataDir = path.join(dir, 'data');
  mkdirSync(inputDir, { recursive: true });
  const configPath = writeAgentConfig(path.join(dir, 'config.json'), { baseUrl: service.url, inputDir, dataDir, extra: { log: { level: 'debug' }, ...extra } });
  return { inputDir, dataDir, configPath };
}

const encodedBy = (a: AgentProcess) => logRecords(a.lines).filter((r) => r.msg === 'recording encoded to FLAC').map((r) => String(r.engine));

async function drained(dataDir: string, want: { recordings: number; detections: number }, a: AgentProcess) {
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
}

describe('the agent on arm64', () => {
  it('is an arm64 process whose better-sqlite3 addon is built for aarch64, and prints its version', async () => {
    expect(execFileSync(AGENT_NODE, ['-p', 'process.arch'], { encoding: 'utf8' }).trim()).toBe('arm64');
    const addon = path.join(path.dirname(AGENT_CLI), '../node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    expect(execFileSync('file', ['-b', addon], { encoding: 'utf8' })).toContain('ARM aarch64');
    const version = await runCli(['--version'], { timeoutMs: 60_000 });
    expect(version.code, version.stderr).toBe(0);
    const { version: expected } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version.stdout.trim()).toBe(expected);
  });

  it.each([
    ['wasm', /libflacjs/],
    ['native', /\(flac program\)$/],
  ])('doctor passes its FLAC check with upload.flacEncoder %s', async (encoder, engine) => {
    const { configPath } = scenario({ upload: { flacEncoder: encoder } });
    const result = await runCli(['doctor', '--offline', '--json', '--config', configPath], { env: agentEnv, timeoutMs: 120_000 });
    const report = parseJson<{ checks: { id: string; status: string; detail: string; data?: { engine?: string } }[] }>(result);
    const flac = report.checks.find((c) => c.id === 'flac');
    expect(flac?.status, JSON.stringify(flac)).toBe('pass');
    expect(flac?.data?.engine).toMatch(engine);
  });

  it('uploads a results folder exactly once across a SIGKILL and a restart (FLAC by libflacjs, WASM)', async () => {
    const { inputDir, dataDir, configPath } = scenario({ upload: { flacEncoder: 'wasm' } });
    const expected = planBacklog({ count: 8, startMs: startDaysAgo(1), random: seededRandom(15), detectionsPerRecording: 2 });
    writeBacklog(inputDir, expected);

    agent = startAgentProcess(configPath, { env: agentEnv });
    await agent.waitForLine(/"msg":"station-agent running"/, SLOW_MS);
    // Killed once something is uploaded and before everything is.
    await until('a first upload', () => withQueue(dataDir, (q) => ((queueCounts(q).detections.uploaded ?? 0) > 0 ? true : undefined)), SLOW_MS);
    const killed = await agent.kill('SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const first = agent;
    withQueue(dataDir, (q) => expect(q.integrityCheck()).toEqual({ ok: true, problems: [] }));

    agent = startAgentProcess(configPath, { env: agentEnv });
    await drained(dataDir, expectedCounts(expected), agent);
    const stop = await agent.kill('SIGTERM');
    expect(stop, agent.lines.slice(-20).join('\n')).toEqual({ code: 0, signal: null });

    const held = await serviceHoldings(client);
    expect(exactlyOnce(expected, held)).toEqual(EXACTLY_ONCE);
    const engines = [...encodedBy(first), ...encodedBy(agent)];
    expect(engines.length).toBeGreaterThan(0);
    for (const e of engines) expect(e).toMatch(/libflacjs/);
  });

  it('takes an analyzerpi WAV before it is deleted, pairs it with its JSON and uploads it as FLAC by the native flac program', async () => {
    const { inputDir, dataDir, configPath } = scenario({ input: { format: 'analyzerpi', minConfidence: 0.7 }, upload: { flacEncoder: 'native' } });
    agent = startAgentProcess(configPath, { env: agentEnv });
    await agent.waitForLine(/"msg":"station-agent running"/, SLOW_MS);

    const name = '2024-02-24-birdnet-16:19:37.wav';
    const wav = path.join(inputDir, name);
    copyFileSync(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), wav);
    // The agent has taken the WAV (a hard link into its spool) before the analyzer deletes it.
    await until('the WAV in the spool', () => (existsSync(path.join(dataDir, 'spool/incoming', name)) ? true : undefined), SLOW_MS, () => agent!.lines.slice(-20).join('\n'));
    writeFileSync(
      `${wav}.json`,
      JSON.stringify({
        file_name: name,
        timestamp: '2024-02-24T16:19:37+01:00',
        delay: 0,
        detections: [
          { start: 0, common_name: 'Eurasian Magpie', confidence: 0.912 },
          { start: 9, common_name: 'Eurasian Magpie', confidence: 0.9316 },
          { start: 21, common_name: 'Eurasian Magpie', confidence: 0.41 },
        ],
      }),
    );
    rmSync(wav);

    await drained(dataDir, { recordings: 1, detections: 2 }, agent);
    const held = await serviceHoldings(client);
    const soundscapes = held.soundscapes.filter((s) => s.timestamp === '2024-02-24T16:19:37.000+01:00');
    expect(soundscapes).toHaveLength(1);
    expect(soundscapes[0]).toMatchObject({ duration: 30, sampleRate: 48_000, mode: 'analyzerpi' });
    expect(encodedBy(agent)).toEqual([expect.stringMatching(/\(flac program\)$/)]);
  });
});
