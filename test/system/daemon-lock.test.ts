import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import type { RunningEmulator } from '@station-agent/emulator';
import { acquireDaemonLock } from '../../src/system/daemon-lock.js';
import { TOKEN } from '../helpers/agent-world.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { startAgentProcess, type AgentProcess } from '../reliability/support/agent-process.js';
import { planBacklog, startDaysAgo, writeBacklog } from '../reliability/support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, expectedCounts, queueCounts, serviceHoldings, total, waiting, withQueue } from '../reliability/support/exactly-once.js';
import { seededRandom } from '../reliability/support/soak.js';
import { until } from '../helpers/until.js';
import { startService, writeAgentConfig } from '../reliability/support/world.js';

/**
 * Two `station-agent run` on one dataDir (one by hand beside systemd, two template
 * units sharing a folder), as processes: the second must refuse, naming the first's
 * PID, and leave its in-flight items alone; the lock dies with its holder, SIGKILL
 * included, so a restart after a crash starts normally. The service must end up
 * with every item exactly once.
 */
const { dir: root, cleanup } = tempDir('daemon-lock-');
const inputDir = path.join(root, 'input');
const dataDir = path.join(root, 'data');
const configPath = path.join(root, 'config.json');
let service: RunningEmulator;
let client: ServiceClient;
const agents: AgentProcess[] = [];

beforeAll(async () => {
  await buildCli();
  mkdirSync(inputDir, { recursive: true });
  // Each request takes a while, so the first daemon is mid-drain (items `sending`) when the second starts.
  service = await startService({ faults: 'latency=40' });
  client = createServiceClient({ baseUrl: service.url, token: TOKEN });
  writeAgentConfig(configPath, { baseUrl: service.url, inputDir, dataDir, extra: { log: { level: 'info' }, upload: { concurrency: 2 } } });
}, 180_000);

afterAll(async () => {
  for (const agent of agents) await agent.kill('SIGKILL');
  await client?.close();
  await service?.close();
  cleanup();
});

const start = (config = configPath) => {
  const agent = startAgentProcess(config);
  agents.push(agent);
  return agent;
};

describe('one daemon per dataDir', () => {
  it('refuses a second run naming the first one\'s PID, and a restart after SIGKILL starts normally, exactly once at the service', async () => {
    const expected = planBacklog({ count: 40, startMs: startDaysAgo(1), random: seededRandom(7), detectionsPerRecording: 3 });
    writeBacklog(inputDir, expected);
    const want = expectedCounts(expected);

    const first = start();
    await first.waitForLine(/"msg":"station-agent running"/);
    // Wait until it is sending, so a second daemon's start-up recovery would have something to steal.
    await until('first daemon uploading', () => withQueue(dataDir, (q) => (queueCounts(q).detections.uploaded ?? 0) > 0 || undefined), 60_000);

    const second = start();
    const refused = await second.exited;
    const output = second.lines.join('\n');
    expect(refused, output).toEqual({ code: 1, signal: null });
    expect(output).toContain(`pid ${first.pid}`);
    expect(output).toContain(dataDir);
    expect(output).not.toContain('station-agent running');

    // The CLI works beside the daemon, as before.
    const status = await runCli(['status', '--offline', '--json', '--config', configPath]);
    expect(status.code, status.stderr).toBe(0);
    const list = await runCli(['queue', 'list', '--limit', '1', '--config', configPath]);
    expect(list.code, list.stderr).toBe(0);

    // The first keeps going: it uploads more after the refusal.
    const before = withQueue(dataDir, (q) => queueCounts(q).detections.uploaded ?? 0);
    await until('first daemon still uploading', () => withQueue(dataDir, (q) => ((queueCounts(q).detections.uploaded ?? 0) > before ? true : undefined)), 60_000);
    expect(first.child.exitCode).toBeNull();

    // Killed without a chance to clean up: the kernel drops its lock.
    expect((await first.kill('SIGKILL')).signal).toBe('SIGKILL');
    const restarted = start();
    await restarted.waitForLine(/"msg":"station-agent running"/);
    const drained = await until(
      'queue drained',
      () =>
        withQueue(dataDir, (q) => {
          const c = queueCounts(q);
          const w = waiting(c);
          return w.recordings + w.detections === 0 && (c.detections.uploaded ?? 0) === want.detections ? c : undefined;
        }),
      120_000,
      () => restarted.lines.slice(-30).join('\n'),
    );
    expect((await restarted.kill('SIGTERM')).code).toBe(0);

    expect(drained.recordings.uploaded).toBe(want.recordings);
    const held = await serviceHoldings(client);
    expect(held.detections).toHaveLength(want.detections);
    expect(held.soundscapes).toHaveLength(want.recordings);
    expect(exactlyOnce(expected, held)).toEqual(EXACTLY_ONCE);
  }, 240_000);

  it('refuses a second run when the lock file was deleted, or the dataDir is reached through a symlink', async () => {
    const data = path.join(root, 'data-deleted');
    const config = writeAgentConfig(path.join(root, 'config-deleted.json'), { baseUrl: service.url, inputDir, dataDir: data, extra: { log: { level: 'info' } } });
    const first = start(config);
    await first.waitForLine(/"msg":"station-agent running"/);
    const lockFile = path.join(data, 'daemon.lock');
    expect(existsSync(lockFile)).toBe(true);
    rmSync(lockFile); // what a tidy-up script or a careless `rm` does

    const second = start(config);
    // Before the fix the second one ran beside the first: fail at once rather than wait for an exit.
    const refused = await Promise.race([second.exited, second.waitForLine(/"msg":"station-agent running"/, 60_000).then(() => 'running', () => 'no line')]);
    const output = second.lines.join('\n');
    expect(refused, output).toEqual({ code: 1, signal: null });
    expect(output).toContain(`another station-agent (pid ${first.pid}) is already running on dataDir ${data}`);
    expect(output).not.toContain('station-agent running');

    // The same folder by another path is the same queue.
    const alias = path.join(root, 'data-alias');
    symlinkSync(data, alias);
    const viaAlias = start(writeAgentConfig(path.join(root, 'config-alias.json'), { baseUrl: service.url, inputDir, dataDir: alias }));
    expect((await viaAlias.exited).code, viaAlias.lines.join('\n')).toBe(1);
    expect(viaAlias.lines.join('\n')).toContain(`pid ${first.pid}`);

    // Once the first has stopped, a start takes both locks again.
    expect((await first.kill('SIGTERM')).code).toBe(0);
    const next = start(config);
    await next.waitForLine(/"msg":"station-agent running"/);
    expect((await next.kill('SIGTERM')).code).toBe(0);
  }, 120_000);
});

/** Whether this process may make namespaces (root, as CI runs): the network-namespace case needs it. */
const CAN_UNSHARE = spawnSync('unshare', ['--net', 'true']).status === 0;

describe('one daemon per dataDir, whoever and wherever', () => {
  it.runIf(CAN_UNSHARE)('refuses a second run in another network namespace after daemon.lock was deleted, naming the first', async () => {
    const data = path.join(root, 'data-netns');
    const config = writeAgentConfig(path.join(root, 'config-netns.json'), { baseUrl: service.url, inputDir, dataDir: data, extra: { log: { level: 'info' } } });
    const first = start(config);
    await first.waitForLine(/"msg":"station-agent running"/);
    rmSync(path.join(data, 'daemon.lock'));

    // Abstract unix sockets are per network namespace; the old dataDir lock was one.
    const second = startAgentProcess(config, { wrap: (cli) => ({ command: 'unshare', args: ['--net', ...cli] }) });
    agents.push(second);
    const refused = await Promise.race([second.exited, second.waitForLine(/"msg":"station-agent running"/, 60_000).then(() => 'running', () => 'no line')]);
    const output = second.lines.join('\n');
    expect(refused, output).toEqual({ code: 1, signal: null });
    expect(output).toContain(`another station-agent (pid ${first.pid}) is already running on dataDir ${data}`);
    expect((await first.kill('SIGTERM')).code).toBe(0);
  }, 120_000);

  it('starts though another process bound the abstract socket name the dataDir lock once was; another user cannot take the lock', async () => {
    const data = path.join(root, 'data-squatted');
    mkdirSync(data, { mode: 0o700 });
    const st = statSync(data, { bigint: true });
    // What any local user could do before the daemon starts: bind the name it would lock.
    const squatter = createServer();
    await new Promise<void>((resolve, reject) => squatter.once('error', reject).listen(`\0station-agent-daemon:${st.dev}:${st.ino}`, resolve));
    try {
      const config = writeAgentConfig(path.join(root, 'config-squatted.json'), { baseUrl: service.url, inputDir: path.join(root, 'input-squatted'), dataDir: data, extra: { log: { level: 'info' } } });
      const agent = start(config);
      await agent.waitForLine(/"msg":"station-agent running"/, 60_000);
      expect(agent.lines.join('\n')).not.toContain('is readable by other users');
      if (process.getuid?.() === 0) {
        // Another user cannot open the 0700 dataDir, so cannot take its flock before or beside the daemon.
        const other = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'flock', '--nonblock', '--conflict-exit-code', '75', data, 'true'], { encoding: 'utf8' });
        expect(other.status, other.stderr).not.toBe(0);
        expect(other.status).not.toBe(75);
        expect(other.stderr).toMatch(/Permission denied/);
      }
      expect((await agent.kill('SIGTERM')).code).toBe(0);
    } finally {
      squatter.close();
    }
  }, 120_000);

  it('warns where other users could take the lock: a dataDir readable by them', async () => {
    const data = path.join(root, 'data-open');
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    const config = writeAgentConfig(path.join(root, 'config-open.json'), { baseUrl: service.url, inputDir: path.join(root, 'input-open'), dataDir: data, extra: { log: { level: 'info' } } });
    const agent = start(config);
    const warning = await agent.waitForLine(/is readable by other users/, 60_000);
    expect(JSON.parse(warning)).toMatchObject({
      level: 'warn',
      msg: `dataDir ${data} is readable by other users (mode 0755): any of them can take its lock and keep the daemon from starting; make it the service user's alone (chmod 700 ${data})`,
    });
    await agent.waitForLine(/"msg":"station-agent running"/, 60_000);
    expect((await agent.kill('SIGTERM')).code).toBe(0);
    // The 0700 dataDir of the test before gave no such line.
  }, 120_000);
});

describe('one daemon per input folder', () => {
  it('refuses a second run on the same input.dir with its own dataDir (each would upload every recording), naming the first one\'s PID', async () => {
    const input = path.join(root, 'input-shared');
    mkdirSync(input, { recursive: true });
    const config = (name: string) => writeAgentConfig(path.join(root, `config-${name}.json`), { baseUrl: service.url, inputDir: input, dataDir: path.join(root, `data-${name}`), extra: { log: { level: 'info' } } });
    const first = start(config('shared-1'));
    await first.waitForLine(/"msg":"station-agent running"/);

    const second = start(config('shared-2'));
    const refused = await Promise.race([second.exited, second.waitForLine(/"msg":"station-agent running"/, 60_000).then(() => 'running', () => 'no line')]);
    const output = second.lines.join('\n');
    expect(refused, output).toEqual({ code: 1, signal: null });
    expect(output).toContain(`another station-agent (pid ${first.pid}) is already watching input.dir ${input}`);

    // Once the first has stopped, the second's config starts.
    expect((await first.kill('SIGTERM')).code).toBe(0);
    const next = start(config('shared-2'));
    await next.waitForLine(/"msg":"station-agent running"/);
    expect((await next.kill('SIGTERM')).code).toBe(0);
  }, 120_000);
});

describe('the input folder made again, or made after the start', () => {
  const recordingsIn = (dataDir: string) => withQueue(dataDir, (q) => total(queueCounts(q).recordings));

  it('a folder deleted and made again is held by whichever daemon took it first; the other leaves it alone', async () => {
    const input = path.join(root, 'input-remade');
    mkdirSync(input);
    const config = (name: string) =>
      writeAgentConfig(path.join(root, `config-${name}.json`), { baseUrl: service.url, inputDir: input, dataDir: path.join(root, `data-${name}`), extra: { log: { level: 'info' } } });
    const first = start(config('remade-1'));
    await first.waitForLine(/"msg":"station-agent running"/);
    rmSync(input, { recursive: true });
    mkdirSync(input);
    // The folder now is another one: a second daemon may take it (the first held the old one).
    const second = start(config('remade-2'));
    await second.waitForLine(/"msg":"station-agent running"/);
    // The first finds the new folder at its next rescan (rescanIntervalSec 10) and is refused it.
    await first.waitForLine(new RegExp(`another station-agent \\(pid ${second.pid}\\) is already watching input\\.dir ${input}.*this one does not watch it`), 60_000);
    const recording = planBacklog({ count: 1, startMs: startDaysAgo(3), random: seededRandom(11), detectionsPerRecording: 1 });
    writeBacklog(input, recording);
    const uploaded = (dataDir: string) => withQueue(dataDir, (q) => queueCounts(q).recordings.uploaded ?? 0);
    await until('the recording uploaded by the second', () => (uploaded(path.join(root, 'data-remade-2')) === 1 ? true : undefined), 60_000, () => second.lines.slice(-20).join('\n'));
    // Before the lock followed the folder, the first watched the new folder too (inotify told
    // both within the same 100 ms quiet time) and queued the recording as well.
    expect(recordingsIn(path.join(root, 'data-remade-1'))).toBe(0);
    expect((await second.kill('SIGTERM')).code).toBe(0);
    expect((await first.kill('SIGTERM')).code).toBe(0);
  }, 180_000);

  it('a folder that appears after both started is watched by one of them only', async () => {
    const input = path.join(root, 'input-late', 'birds');
    const config = (name: string) =>
      writeAgentConfig(path.join(root, `config-${name}.json`), { baseUrl: service.url, inputDir: input, dataDir: path.join(root, `data-${name}`), extra: { log: { level: 'info' } } });
    const daemons = [start(config('late-1')), start(config('late-2'))];
    for (const d of daemons) await d.waitForLine(/"msg":"station-agent running"/);
    mkdirSync(input, { recursive: true });
    const refused = await Promise.race(daemons.map((d, i) => d.waitForLine(/is already watching input\.dir/, 60_000).then(() => i)));
    const watching = daemons[1 - refused];
    expect(daemons[refused].lines.join('\n')).toContain(`another station-agent (pid ${watching.pid}) is already watching input.dir ${input}`);
    const recording = planBacklog({ count: 1, startMs: startDaysAgo(4), random: seededRandom(13), detectionsPerRecording: 1 });
    writeBacklog(input, recording);
    const dataOf = (i: number) => path.join(root, `data-late-${i + 1}`);
    await until('the recording uploaded by the one watching', () => (withQueue(dataOf(1 - refused), (q) => queueCounts(q).recordings.uploaded ?? 0) === 1 ? true : undefined), 60_000);
    expect(recordingsIn(dataOf(refused))).toBe(0);
    for (const d of daemons) expect((await d.kill('SIGTERM')).code).toBe(0);
  }, 180_000);
});

describe('a folder deleted under a running daemon', () => {
  it('does not lock out a folder made after it, which ext4 gives the freed inode number', async () => {
    // The flake this pins: a test's daemon outlived its deleted temp folder, the next test's
    // new folder got the inode number, and the new daemon was refused "already watching".
    // The holder keeps its folders open, so their numbers stay taken while it runs.
    const parent = path.join(root, 'reused');
    mkdirSync(parent);
    const made = (name: string) => {
      const dir = path.join(parent, name);
      mkdirSync(dir);
      return { dir, ino: statSync(dir).ino };
    };
    const data = made('data-1');
    const input = made('input-1');
    const first = await acquireDaemonLock(data.dir, input.dir);
    try {
      rmSync(data.dir, { recursive: true });
      rmSync(input.dir, { recursive: true });
      // Without the folder held open, the next mkdir here takes the number just freed (checked
      // when written: both new folders got their predecessor's inode, and acquire threw).
      const nextData = made('data-2');
      const nextInput = made('input-2');
      expect([nextData.ino, nextInput.ino]).not.toContain(input.ino);
      expect([nextData.ino, nextInput.ino]).not.toContain(data.ino);
      const second = await acquireDaemonLock(nextData.dir, nextInput.dir);
      second.release();
    } finally {
      first.release();
    }
    // Released, a folder's number is free again, and so is its lock.
    const again = made('input-3');
    const third = await acquireDaemonLock(path.join(parent, 'data-3'), again.dir);
    third.release();
  });
});
