import { execFile } from 'node:child_process';
import { chownSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '@station-agent/emulator';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import { until } from '../helpers/until.js';
import { planBacklog, startDaysAgo, writeBacklog } from '../reliability/support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, expectedCounts, serviceHoldings } from '../reliability/support/exactly-once.js';
import { seededRandom } from '../reliability/support/soak.js';
import { REAL_LABELS, TOKEN } from '../helpers/agent-world.js';
import { startService, writeAgentConfig } from '../reliability/support/world.js';

/**
 * `npm run test:release`, its last step (scripts/test-release.sh sets the variables): in the
 * Debian 12 root file system, with station-agent STATION_AGENT_RELEASE_FROM installed from the
 * signed repository and STATION_AGENT_RELEASE_TO published in it, the agent runs and uploads
 * to the local service in this process (1.2 s of latency on every request, so uploads are
 * always in flight), and `unattended-upgrade` (not a dry run: what the documented
 * configuration does every day) upgrades it. apt's maintainer scripts stop the running agent
 * (prerm), migrate the queue, start the new version (postinst). Every recording and detection
 * reaches the service exactly once.
 *
 * systemd does not run in the root file system: test/release/systemctl stands in for it, for
 * the one unit, doing what systemd does for a Type=exec unit (start as User=, stop with
 * SIGTERM and a wait up to TimeoutStopSec=, then SIGKILL) and saying in its log what it did.
 */
const ROOT = process.env.STATION_AGENT_RELEASE_ROOT;
const FROM = process.env.STATION_AGENT_RELEASE_FROM;
const TO = process.env.STATION_AGENT_RELEASE_TO;
if (!ROOT || !FROM || !TO) throw new Error('test/release runs through npm run test:release (scripts/test-release.sh), which sets STATION_AGENT_RELEASE_ROOT, _FROM and _TO');

const run = promisify(execFile);
/** A command in the root file system, asynchronous: the local service in this process must keep answering meanwhile. */
async function inRootOutput(...command: string[]): Promise<{ stdout: string; stderr: string }> {
  const env = ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'HOME=/root', 'LC_ALL=C', 'DEBIAN_FRONTEND=noninteractive'];
  return run('chroot', [ROOT!, '/usr/bin/env', '-i', ...env, ...command], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}
async function inRoot(...command: string[]): Promise<string> {
  const { stdout, stderr } = await inRootOutput(...command);
  return `${stdout}${stderr}`;
}
const inRootPath = (...parts: string[]) => path.join(ROOT, ...parts);
const installed = async () => (await inRoot('dpkg-query', '-W', '-f=${Version}', 'station-agent')).trim();
const standinLog = () => readFileSync(inRootPath('var/log/systemctl-standin.log'), 'utf8');

type Counts = Record<string, number>;
/**
 * The queue's counts as the agent's own `status` reads them, run as the service's user: this
 * process (root) must never open the queue itself, or SQLite's files it creates (the database
 * before the daemon made it, the WAL while no agent runs during the upgrade) are root's, and
 * the agent then cannot write its queue.
 */
async function queue(): Promise<{ soundscapes: Counts; detections: Counts } | undefined> {
  const out = await inRootOutput('setpriv', '--reuid=station-agent', '--regid=station-agent', '--clear-groups', 'station-agent', 'status', '--offline', '--json').catch(() => null);
  if (!out) return undefined;
  const q = (JSON.parse(out.stdout) as { queue: { exists: boolean; soundscapes: Counts; detections: Counts } }).queue;
  return q.exists ? q : undefined;
}
const open = (c: Counts) => (c.pending ?? 0) + (c.sending ?? 0) + (c.unknown ?? 0);

let service: RunningEmulator;
let client: ServiceClient;

beforeAll(async () => {
  service = await startService();
  client = createServiceClient({ baseUrl: service.url, token: TOKEN });
});
afterAll(async () => {
  await inRoot('systemctl', 'stop', 'station-agent.service').catch(() => undefined);
  await client?.close();
  await service?.close();
});

describe('an upgrade through unattended-upgrades while uploads are in flight', () => {
  it(`stops ${FROM} cleanly, migrates, starts ${TO}: every recording and detection uploaded exactly once`, async () => {
    expect(await installed()).toBe(FROM);
    const [uid, gid] = readFileSync(inRootPath('etc/passwd'), 'utf8').split('\n').find((l) => l.startsWith('station-agent:'))!.split(':').slice(2, 4).map(Number);
    // A fresh queue and input folder (the earlier steps' queue names another service).
    await inRoot('systemctl', 'stop', 'station-agent.service');
    rmSync(inRootPath('var/lib/station-agent'), { recursive: true, force: true });
    mkdirSync(inRootPath('var/lib/station-agent'), { mode: 0o700 });
    chownSync(inRootPath('var/lib/station-agent'), uid, gid);
    const inputDir = inRootPath('srv-live');
    rmSync(inputDir, { recursive: true, force: true });
    mkdirSync(inputDir);
    const expected = planBacklog({ count: 24, startMs: startDaysAgo(1), random: seededRandom(37), detectionsPerRecording: 2 });
    writeBacklog(inputDir, expected);
    copyFileSync(REAL_LABELS, inRootPath('srv-labels.txt'));
    const config = writeAgentConfig(inRootPath('etc/station-agent/config.json'), {
      baseUrl: service.url,
      inputDir: '/srv-live',
      dataDir: '/var/lib/station-agent',
      extra: { service: { timeoutMs: 5_000 }, input: { labels: '/srv-labels.txt' }, upload: { concurrency: 2 }, log: { level: 'info' } },
    });
    chownSync(config, uid, gid);
    // Every request answered 1.2 s late (within the agent's 5 s): at any moment of the upgrade, uploads are open.
    service.setFaults({ latencyMs: 1_200 });
    // The maintainer scripts ask systemd (here, its stand-in) where /run/systemd/system exists.
    mkdirSync(inRootPath('run/systemd/system'), { recursive: true });
    await inRoot('systemctl', 'start', 'station-agent.service');
    await until(
      'a first upload, the rest still to go',
      async () => {
        const q = await queue();
        return q && (q.detections.uploaded ?? 0) + (q.soundscapes.uploaded ?? 0) > 0 ? q : undefined;
      },
      180_000,
      () => readFileSync(inRootPath('var/log/station-agent.log'), 'utf8').split('\n').slice(-20).join('\n'),
    );

    const upgrade = await inRoot('unattended-upgrade', '-v');
    expect(await installed(), upgrade).toBe(TO);

    // prerm stopped the running agent with uploads open, and it exited by itself; postinst started the new one.
    const log = standinLog();
    const stops = [...log.matchAll(/SIGTERM pid (\d+)/g)].map((m) => m[1]);
    expect(stops.length, `prerm asked systemd to stop the agent:\n${log}`).toBeGreaterThan(0);
    const last = stops.at(-1)!;
    expect(log, log).toMatch(new RegExp(`exited pid ${last} after \\d+\\.\\d s`));
    expect(log).not.toMatch(/SIGKILL/);
    const atStop = JSON.parse(readFileSync(inRootPath('var/log/station-agent-at-stop.json'), 'utf8')) as { queue: { soundscapes: Record<string, number>; detections: Record<string, number> } };
    expect(open(atStop.queue.soundscapes) + open(atStop.queue.detections), 'items still to upload when prerm stopped the agent').toBeGreaterThan(0);
    expect(log.slice(log.lastIndexOf(`SIGTERM pid ${last}`))).toMatch(/started pid \d+/);
    // What dpkg and the maintainer scripts printed (unattended-upgrades keeps it in its own log).
    const dpkgLog = readFileSync(inRootPath('var/log/unattended-upgrades/unattended-upgrades-dpkg.log'), 'utf8');
    expect(dpkgLog).toMatch(/station-agent: starting station-agent\.service/);

    service.setFaults(null);
    const want = expectedCounts(expected);
    await until(
      'the new version uploads the rest',
      async () => {
        const q = await queue();
        return q && open(q.soundscapes) + open(q.detections) === 0 && q.soundscapes.uploaded === want.recordings && q.detections.uploaded === want.detections ? q : undefined;
      },
      300_000,
      () => readFileSync(inRootPath('var/log/station-agent.log'), 'utf8').split('\n').slice(-30).join('\n'),
    );
    expect(exactlyOnce(expected, await serviceHoldings(client))).toEqual(EXACTLY_ONCE);
    expect(existsSync(inRootPath('run/station-agent-standin.pid'))).toBe(true);
    // postinst's daemon-reload ran the package's generator: the unit may write its input folder (issue 38).
    expect(readFileSync(inRootPath('run/systemd/generator/station-agent.service.d/50-station-agent-input.conf'), 'utf8')).toContain('ReadWritePaths="-/srv-live"');
  });
});
