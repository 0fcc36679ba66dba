import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { isSync, parseTrace, straceArgs } from '../../bench/src/write-cost.js';
import { REAL_LABELS, TOKEN } from '../helpers/agent-world.js';
import { buildCli, writeCliConfig } from '../helpers/cli.js';
import { realFixture, tempDir } from '../helpers/paths.js';
import { addRealRecording } from '../helpers/real-recording.js';
import { until } from '../helpers/until.js';
import { startAgentProcess, type AgentProcess } from '../reliability/support/agent-process.js';

/**
 * The SD card's budget (issue 35): at most 3 fsyncs per recording, counted from the system
 * calls of `station-agent run` (under strace -f, its threads included) on an analyzerpi stream
 * folder fed as the analyzer feeds it: the WAV, its JSON once the agent holds the WAV, then the
 * WAV deleted. Every sync of a file in dataDir from the start's end (running, the station's
 * settings pushed) until the service stored the
 * recording's detections counts (a claim is fsynced before its request goes out, so none of
 * this recording's comes later). The first recording after a start is the one measured: it
 * paid a fourth, the WAL's folder, until the daemon synced that at start (3.025 per recording
 * over the bench's 40).
 */
const HAS_STRACE = spawnSync('strace', ['-V']).status === 0;

/**
 * Kills the daemon strace runs, then strace: a tracer killed first detaches, and the daemon
 * it traced goes on running after the test (each of this file's daemons was left behind, its
 * input folder deleted, until the machine rebooted).
 */
async function killTraced(agent: AgentProcess | undefined): Promise<void> {
  if (!agent || agent.child.exitCode !== null || agent.child.signalCode !== null) return;
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${agent.pid}/task/${agent.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // strace gone already: its daemon with it, or never started
  }
  for (const pid of children) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await agent.kill('SIGKILL');
}

describe.skipIf(!HAS_STRACE)('fsyncs per recording, analyzerpi stream folder (strace)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let emulator: RunningEmulator;
  let agent: AgentProcess | undefined;

  beforeAll(async () => {
    await buildCli();
    tmp = tempDir('recording-fsyncs-');
    emulator = await startEmulator({ port: 0, stations: [{ token: TOKEN, name: 'Test station', lat: 52.52, lon: 13.4, timezone: 'Europe/Berlin' }], labels: REAL_LABELS });
  }, 180_000);

  afterAll(async () => {
    await killTraced(agent);
    await emulator?.close();
    tmp?.cleanup();
  });

  it('the first recording after a start costs at most 3, none of them a folder', async () => {
    const inputDir = path.join(tmp.dir, 'input');
    const dataDir = path.join(tmp.dir, 'data');
    const config = writeCliConfig(path.join(tmp.dir, 'config.json'), {
      baseUrl: emulator.url,
      token: TOKEN,
      dataDir,
      inputDir,
      extra: { input: { dir: inputDir, format: 'analyzerpi', minConfidence: 0.7, labels: REAL_LABELS, stableMs: 200 }, clock: { requireSync: 'never' }, log: { level: 'info' } },
    });
    const trace = path.join(tmp.dir, 'strace.txt');
    agent = startAgentProcess(config, {
      wrap: (cli) => ({ command: 'strace', args: [...straceArgs(trace, ['fsync', 'fdatasync', 'syncfs']), ...cli] }),
      env: { UV_USE_IO_URING: '0' },
    });
    await agent.waitForLine(/station-agent running/, 60_000);
    // The start's own commits (the station's settings pushed, once per start) are not the recording's.
    await agent.waitForLine(/config sync: station settings pushed/, 60_000);
    const from = Date.now() / 1000;

    const name = '2024-02-24-birdnet-16:19:37.wav';
    const wav = path.join(inputDir, name);
    copyFileSync(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), wav);
    await until('the WAV linked into the spool', () => existsSync(path.join(dataDir, 'spool', 'incoming', name)));
    writeFileSync(
      `${wav}.json`,
      JSON.stringify({
        file_name: name,
        timestamp: '2024-02-24T16:19:37+01:00',
        delay: 0,
        detections: [0, 9, 18].map((start) => ({ start, common_name: 'Eurasian Magpie', confidence: 0.9 })),
      }),
    );
    rmSync(wav);
    const station = emulator.store.stations.byToken(TOKEN)!;
    await until('the recording and its 3 detections at the service', () => emulator.store.soundscapes.list({ stationId: station.id }, { limit: 10 }).length === 1 && emulator.store.detections.list({ stationId: station.id }, { limit: 10 }).length === 3, 60_000, () => agent!.lines.slice(-20).join('\n'));
    const to = Date.now() / 1000;

    const syncs = parseTrace(readFileSync(trace, 'utf8')).filter((c) => isSync(c) && c.time !== null && c.time >= from && c.time < to && c.file?.startsWith(dataDir));
    const files = syncs.map((c) => `${c.name} ${path.relative(dataDir, c.file!) || '(dataDir itself)'}`);
    expect(files.length, `${syncs.map((c) => `${c.time} ${c.name} ${c.file}`).join('\n')}\n${agent.lines.join('\n')}`).toBeLessThanOrEqual(3);
    expect(files.filter((f) => !/queue\.db(-wal)?$/.test(f)), 'folders or audio synced').toEqual([]);
  }, 120_000);
});

/**
 * A WAV copied into the spool (the analyzer's folder on another file system, a RAM disk) is
 * written to `.part`, fsynced and renamed: the rename is made durable by a sync of the spool's
 * folder before the row naming it is committed (issue 35: "fsync what is renamed into place").
 */
const RAM_DISK = '/dev/shm';
const OTHER_FS = existsSync(RAM_DISK) && statSync(RAM_DISK).dev !== statSync(os.tmpdir()).dev;

describe.skipIf(!HAS_STRACE || !OTHER_FS)('a WAV copied into the spool (strace)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let ram: string;
  let emulator: RunningEmulator;
  let agent: AgentProcess | undefined;

  beforeAll(async () => {
    await buildCli();
    tmp = tempDir('spool-rename-');
    ram = mkdtempSync(path.join(RAM_DISK, 'spool-rename-'));
    emulator = await startEmulator({ port: 0, stations: [{ token: TOKEN, name: 'Test station', lat: 52.52, lon: 13.4, timezone: 'Europe/Berlin' }], labels: REAL_LABELS });
  }, 180_000);

  afterAll(async () => {
    await killTraced(agent);
    await emulator?.close();
    tmp?.cleanup();
    if (ram) rmSync(ram, { recursive: true, force: true });
  });

  it('is renamed into place and its folder synced before the queue commit', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const config = writeCliConfig(path.join(tmp.dir, 'config.json'), {
      baseUrl: emulator.url,
      token: TOKEN,
      dataDir,
      inputDir: ram,
      extra: { input: { dir: ram, format: 'results', minConfidence: 0.1, labels: REAL_LABELS, stableMs: 200 }, clock: { requireSync: 'never' }, log: { level: 'info' } },
    });
    const trace = path.join(tmp.dir, 'strace.txt');
    agent = startAgentProcess(config, {
      wrap: (cli) => ({ command: 'strace', args: [...straceArgs(trace, ['fsync', 'fdatasync', 'rename', 'renameat', 'renameat2']), ...cli] }),
      env: { UV_USE_IO_URING: '0' },
    });
    await agent.waitForLine(/station-agent running/, 60_000);
    addRealRecording(ram);
    await agent.waitForLine(/recording queued/, 60_000);

    const lines = readFileSync(trace, 'utf8').split('\n');
    const spool = path.join(dataDir, 'spool');
    const renamed = lines.findIndex((l) => /rename/.test(l) && l.includes('.part"') && l.includes(`"${spool}/`));
    expect(renamed, lines.filter((l) => /rename/.test(l)).join('\n')).toBeGreaterThan(-1);
    const after = lines.slice(renamed + 1);
    const folderSync = after.findIndex((l) => /^\d+\s+[\d.]+\s+fsync\(\d+<([^>]*)>\)/.exec(l)?.[1] === spool);
    const walSync = after.findIndex((l) => /f(data)?sync\(\d+<[^>]*queue\.db-wal>\)/.test(l));
    expect(folderSync, after.slice(0, 20).join('\n')).toBeGreaterThan(-1);
    expect(folderSync).toBeLessThan(walSync);
  }, 120_000);
});
