import { execFile } from 'node:child_process';
import { chownSync, copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import type { RunningEmulator } from '@station-agent/emulator';
import { createServiceClient, type ServiceClient } from '../../src/api/index.js';
import { REAL_LABELS, TOKEN } from '../helpers/agent-world.js';
import { until } from '../helpers/until.js';
import { expectedCounts } from '../reliability/support/exactly-once.js';
import { planBacklog, startDaysAgo, writeBacklog, type ExpectedRecording } from '../reliability/support/backlog.js';
import { seededRandom } from '../reliability/support/soak.js';
import { deepMerge, startService, writeAgentConfig } from '../reliability/support/world.js';

/**
 * test/release's view of a root file system of `npm run test:release` (scripts/test-release.sh
 * builds it and installs station-agent in it from the signed repository): commands in it by
 * chroot, the agent's queue as its own `status` reads it, and a fresh station in it to upload
 * to the local service in the test process. The agent is started and stopped by the root's
 * systemctl, test/release/systemctl (installed there by the script: no systemd runs in it).
 */
export interface ReleaseRoot {
  /** A path inside the root, as this process sees it. */
  path(...parts: string[]): string;
  /** A command in the root, asynchronous: the local service in this process must keep answering meanwhile. */
  output(...command: string[]): Promise<{ stdout: string; stderr: string }>;
  /** The same, its stdout and stderr as one text. */
  run(...command: string[]): Promise<string>;
  /** The version of station-agent dpkg has installed. */
  installed(): Promise<string>;
  /** The queue's counts, or undefined while there is none (or the agent cannot say). */
  queue(): Promise<QueueView | undefined>;
  /** Waits until the queue has uploaded the backlog `expected` and nothing is open (`what` names the wait). */
  drained(what: string, expected: readonly ExpectedRecording[], timeoutMs: number): Promise<QueueView>;
  /** The last lines of the agent's log (what the stand-in started wrote). */
  agentLog(lines: number): string;
  /** What the systemctl stand-in did. */
  standinLog(): string;
  /**
   * Stops the agent, then a fresh queue, an input folder /srv-live with a backlog of `count`
   * recordings of 2 detections, and a config naming the service: the agent's next start
   * uploads them. Returns the backlog.
   */
  station(service: RunningEmulator, options: { count: number; seed: number; extra?: Record<string, unknown> }): Promise<ExpectedRecording[]>;
}

type Counts = Record<string, number>;
export interface QueueView {
  soundscapes: Counts;
  detections: Counts;
}
/** Items not settled: still to send, being sent, or to be looked up at the service. */
export const open = (c: Counts) => (c.pending ?? 0) + (c.sending ?? 0) + (c.unknown ?? 0);

const run = promisify(execFile);

export function releaseRoot(root: string): ReleaseRoot {
  const inRoot = (...parts: string[]) => path.join(root, ...parts);
  const output = (...command: string[]) => {
    const env = ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'HOME=/root', 'LC_ALL=C', 'DEBIAN_FRONTEND=noninteractive'];
    return run('chroot', [root, '/usr/bin/env', '-i', ...env, ...command], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  };
  const text = async (...command: string[]) => {
    const { stdout, stderr } = await output(...command);
    return `${stdout}${stderr}`;
  };
  const agentUser = () =>
    readFileSync(inRoot('etc/passwd'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('station-agent:'))!
      .split(':')
      .slice(2, 4)
      .map(Number) as [number, number];
  return {
    path: inRoot,
    output,
    run: text,
    installed: async () => (await text('dpkg-query', '-W', '-f=${Version}', 'station-agent')).trim(),
    /**
     * Run as the service's user: this process (root) must never open the queue itself, or
     * SQLite's files it creates (the database before the daemon made it, the WAL while no
     * agent runs during an upgrade) are root's, and the agent then cannot write its queue.
     */
    async queue() {
      const out = await output('setpriv', '--reuid=station-agent', '--regid=station-agent', '--clear-groups', 'station-agent', 'status', '--offline', '--json').catch(() => null);
      if (!out) return undefined;
      const q = (JSON.parse(out.stdout) as { queue: QueueView & { exists: boolean } }).queue;
      return q.exists ? q : undefined;
    },
    drained(what, expected, timeoutMs) {
      const want = expectedCounts(expected);
      return until(
        what,
        async () => {
          const q = await this.queue();
          return q && open(q.soundscapes) + open(q.detections) === 0 && q.soundscapes.uploaded === want.recordings && q.detections.uploaded === want.detections ? q : undefined;
        },
        timeoutMs,
        () => this.agentLog(30),
      );
    },
    agentLog: (lines) => readFileSync(inRoot('var/log/station-agent.log'), 'utf8').split('\n').slice(-lines).join('\n'),
    standinLog: () => readFileSync(inRoot('var/log/systemctl-standin.log'), 'utf8'),
    async station(service, { count, seed, extra = {} }) {
      const [uid, gid] = agentUser();
      await text('systemctl', 'stop', 'station-agent.service');
      rmSync(inRoot('var/lib/station-agent'), { recursive: true, force: true });
      mkdirSync(inRoot('var/lib/station-agent'), { mode: 0o700 });
      chownSync(inRoot('var/lib/station-agent'), uid, gid);
      const inputDir = inRoot('srv-live');
      rmSync(inputDir, { recursive: true, force: true });
      mkdirSync(inputDir);
      const expected = planBacklog({ count, startMs: startDaysAgo(1), random: seededRandom(seed), detectionsPerRecording: 2 });
      writeBacklog(inputDir, expected);
      copyFileSync(REAL_LABELS, inRoot('srv-labels.txt'));
      const config = writeAgentConfig(inRoot('etc/station-agent/config.json'), {
        baseUrl: service.url,
        inputDir: '/srv-live',
        dataDir: '/var/lib/station-agent',
        extra: deepMerge({ input: { labels: '/srv-labels.txt' }, log: { level: 'info' } }, extra),
      });
      chownSync(config, uid, gid);
      // The maintainer scripts ask systemd (here, its stand-in) where /run/systemd/system exists.
      mkdirSync(inRoot('run/systemd/system'), { recursive: true });
      return expected;
    },
  };
}

/**
 * The local service in this test process and its client, started before a file's tests; after
 * them the agent in the root is stopped and both are closed. Call at a test file's top level.
 */
export function releaseService(root: ReleaseRoot): { readonly service: RunningEmulator; readonly client: ServiceClient } {
  let service: RunningEmulator | undefined;
  let client: ServiceClient | undefined;
  beforeAll(async () => {
    service = await startService();
    client = createServiceClient({ baseUrl: service.url, token: TOKEN });
  });
  afterAll(async () => {
    await root.run('systemctl', 'stop', 'station-agent.service').catch(() => undefined);
    await client?.close();
    await service?.close();
  });
  return {
    get service() {
      return service!;
    },
    get client() {
      return client!;
    },
  };
}
