import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startEmulator } from '@station-agent/emulator';
import { getMeta, openQueue } from '../../src/queue/index.js';
import { RUNTIME_META_KEY, parseRuntimeSnapshot, type RuntimeSnapshot } from '../../src/runtime/snapshot.js';
import { TOKEN } from './agent-world.js';
import { runCli } from './cli.js';
import { tempDir } from './paths.js';
import { until } from './until.js';
import { startAgentProcess, type AgentProcess } from '../reliability/support/agent-process.js';
import { writeAgentConfig } from '../reliability/support/world.js';

/**
 * A station whose agent runs as a process under the installed unit's mounts, without
 * systemd: in a mount namespace (`unshare -rm`) where dataDir is bind-mounted onto itself,
 * as the unit's `StateDirectory=` under `ProtectSystem=strict` does, and the input folder
 * bind-mounted read-write onto itself (`ReadWritePaths=`) or read-only (`ProtectSystem=strict`
 * alone), or on another file system (/dev/shm). The agent is AGENT_NODE and AGENT_CLI
 * (test/helpers/cli.ts): this tree's build, or an installed package's.
 */
export const namespaces = (() => {
  const { dir, cleanup } = tempDir('sandbox-spool-probe-');
  try {
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0"', dir], { encoding: 'utf8', timeout: 10_000 });
    if (r.error) return { ok: false, why: `unshare not available: ${r.error.message}` };
    return r.status === 0 ? { ok: true, why: '' } : { ok: false, why: `unshare -rm + mount --bind refused: ${(r.stderr || '').trim()}` };
  } finally {
    cleanup();
  }
})();
if (!namespaces.ok) console.warn(`sandbox spool tests skipped: ${namespaces.why}`);

/**
 * The unit's mounts: dataDir bind-mounted onto itself; the input folder too, read-write
 * (`ReadWritePaths=`) or read-only (`ProtectSystem=strict` alone makes it so).
 */
function unitMounts(input: 'rw' | 'ro' | 'apart'): string {
  const steps = ['mount --bind "$1" "$1"'];
  if (input !== 'apart') steps.push('mount --bind "$2" "$2"');
  if (input === 'ro') steps.push('mount -o remount,bind,ro "$2"');
  return `${steps.join(' && ')} && shift 2 && exec "$@"`;
}

export interface SandboxStation {
  inputDir: string;
  dataDir: string;
  configPath: string;
  agent: AgentProcess;
}

const closers: (() => Promise<void>)[] = [];

/** Stops the agents and removes the stations (afterEach). */
export async function closeSandboxStations(): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close();
}

let deadUrl: string | undefined;

/** A service URL where nothing answers: the recordings stay in the spool, where the test can look at them. */
async function noService(): Promise<string> {
  if (!deadUrl) {
    const dead = await startEmulator({ tokens: [TOKEN] });
    deadUrl = dead.url;
    await dead.close();
  }
  return deadUrl;
}

/** How the unit mounts the input folder; a function decides once the config is written (from a unit's drop-in, say). */
export type InputMount = 'rw' | 'ro' | 'apart';

export async function sandboxStation(
  inputMount: InputMount | ((station: { inputDir: string; configPath: string }) => Exclude<InputMount, 'apart'>),
  format: 'results' | 'analyzerpi',
  before: (inputDir: string) => void = () => {},
  /** How long the agent may take to start (emulated arm64 under load: minutes). */
  startMs = 30_000,
): Promise<SandboxStation> {
  let input: InputMount = typeof inputMount === 'function' ? 'rw' : inputMount;
  const { dir: root, cleanup } = tempDir('sandbox-spool-');
  let inputDir = path.join(root, 'input');
  if (input === 'apart') {
    inputDir = mkdtempSync(path.join('/dev/shm', 'sandbox-spool-input-'));
    closers.push(() => Promise.resolve(rmSync(inputDir, { recursive: true, force: true })));
  }
  const dataDir = path.join(root, 'data');
  for (const d of [inputDir, dataDir]) mkdirSync(d, { recursive: true });
  closers.push(() => Promise.resolve(cleanup()));
  before(inputDir);
  const configPath = writeAgentConfig(path.join(root, 'config.json'), {
    baseUrl: await noService(),
    inputDir,
    dataDir,
    extra: { input: { format }, log: { level: 'info' } },
  });
  if (typeof inputMount === 'function') input = inputMount({ inputDir, configPath });
  const agent = startAgentProcess(configPath, {
    wrap: (cli) => ({ command: 'unshare', args: ['-rm', 'sh', '-c', unitMounts(input), 'sh', dataDir, inputDir, ...cli] }),
  });
  closers.push(async () => {
    await agent.kill('SIGTERM');
  });
  await agent.waitForLine(/station-agent running/, startMs);
  return { inputDir, dataDir, configPath, agent };
}

export function snapshotOf(dataDir: string): RuntimeSnapshot | null {
  if (!existsSync(path.join(dataDir, 'queue.db'))) return null;
  const q = openQueue(path.join(dataDir, 'queue.db'));
  try {
    return parseRuntimeSnapshot(getMeta(q, RUNTIME_META_KEY));
  } finally {
    q.close();
  }
}

/** Waits until the daemon's snapshot counts `n` audio files taken (it writes the first link and the first copy at once, the rest within a minute). */
export async function taken(s: SandboxStation, n: number, what: 'linked' | 'referenced' | 'copied', timeoutMs = 90_000): Promise<NonNullable<RuntimeSnapshot['audio']>> {
  return until(
    `the daemon's snapshot counts ${n} ${what}`,
    () => {
      const audio = snapshotOf(s.dataDir)?.audio;
      return audio && audio[what] >= n ? audio : undefined;
    },
    timeoutMs,
    () => `${JSON.stringify(snapshotOf(s.dataDir)?.audio)}\n${s.agent.lines.slice(-15).join('\n')}`,
  );
}

/** The audio files in dataDir's spool (not incoming/). */
export function cardSpool(dataDir: string): string[] {
  return readdirSync(path.join(dataDir, 'spool')).filter((f) => f !== 'incoming');
}

export async function doctorAudio(s: SandboxStation): Promise<{ status: string; detail: string; hint: string | null; data: Record<string, unknown> }> {
  const result = await runCli(['doctor', '--json', '--offline', '--config', s.configPath]);
  const json = JSON.parse(result.stdout) as { checks: { id: string; status: string; detail: string; hint: string | null; data: Record<string, unknown> }[] };
  return json.checks.find((c) => c.id === 'audio-copy')!;
}

export async function statusTaken(s: SandboxStation): Promise<Record<string, unknown> | null> {
  const result = await runCli(['status', '--json', '--offline', '--config', s.configPath]);
  return (JSON.parse(result.stdout) as { disk: { audioTaken: Record<string, unknown> | null } }).disk.audioTaken;
}
