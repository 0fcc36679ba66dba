import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_CLI, AGENT_NODE, parseJson, runCli } from '../helpers/cli.js';
import { installedAgentSuite, SLOW_MS } from '../helpers/installed-agent.js';
import { REPO_ROOT, realFixture } from '../helpers/paths.js';
import { until } from '../helpers/until.js';
import { logRecords, type AgentProcess } from '../reliability/support/agent-process.js';
import { serviceHoldings } from '../reliability/support/exactly-once.js';

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
const suite = installedAgentSuite('arm64-', agentEnv);
let run = 0;
/** A fresh input folder, queue and config for one scenario. */
const scenario = (extra: Record<string, unknown>) => suite.scenario(`run-${++run}`, { extra: { log: { level: 'debug' }, ...extra } });

const encodedBy = (a: AgentProcess) => logRecords(a.lines).filter((r) => r.msg === 'recording encoded to FLAC').map((r) => String(r.engine));

describe('the agent on arm64', () => {
  it('is an arm64 process of the pinned Node whose better-sqlite3 addon is built for aarch64, and prints its version', async () => {
    const { version: node } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'packaging/node/package.json'), 'utf8')) as { version: string };
    expect(execFileSync(AGENT_NODE, ['-p', 'process.arch + " " + process.versions.node'], { encoding: 'utf8' }).trim()).toBe(`arm64 ${node}`);
    const addon = path.join(path.dirname(AGENT_CLI), '../node_modules/better-sqlite3/prebuilds/linux-arm64.node');
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
    const { first, second } = await suite.exactlyOnceAcrossKill({ seed: 15, extra: { log: { level: 'debug' }, upload: { flacEncoder: 'wasm' } } });
    const engines = [...encodedBy(first), ...encodedBy(second)];
    expect(engines.length).toBeGreaterThan(0);
    for (const e of engines) expect(e).toMatch(/libflacjs/);
  });

  it('takes an analyzerpi WAV before it is deleted, pairs it with its JSON and uploads it as FLAC by the native flac program', async () => {
    const { inputDir, dataDir, configPath } = scenario({ input: { format: 'analyzerpi', minConfidence: 0.7 }, upload: { flacEncoder: 'native' } });
    const agent = suite.start(configPath);
    await agent.waitForLine(/"msg":"station-agent running"/, SLOW_MS);

    const name = '2024-02-24-birdnet-16:19:37.wav';
    const wav = path.join(inputDir, name);
    copyFileSync(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), wav);
    // The agent has taken the WAV (a hard link into its spool) before the analyzer deletes it.
    await until('the WAV in the spool', () => (existsSync(path.join(dataDir, 'spool/incoming', name)) ? true : undefined), SLOW_MS, () => agent.lines.slice(-20).join('\n'));
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

    await suite.drained(dataDir, { recordings: 1, detections: 2 }, agent);
    const held = await serviceHoldings(suite.client);
    const soundscapes = held.soundscapes.filter((s) => s.timestamp === '2024-02-24T16:19:37.000+01:00');
    expect(soundscapes).toHaveLength(1);
    expect(soundscapes[0]).toMatchObject({ duration: 30, sampleRate: 48_000, mode: 'analyzerpi' });
    expect(encodedBy(agent)).toEqual([expect.stringMatching(/\(flac program\)$/)]);
  });
});
