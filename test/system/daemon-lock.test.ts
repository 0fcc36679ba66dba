import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import type { RunningEmulator } from '@station-agent/emulator';
import { TOKEN } from '../helpers/agent-world.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { startAgentProcess, type AgentProcess } from '../reliability/support/agent-process.js';
import { planBacklog, startDaysAgo, writeBacklog } from '../reliability/support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, expectedCounts, queueCounts, serviceHoldings, waiting, withQueue } from '../reliability/support/exactly-once.js';
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
