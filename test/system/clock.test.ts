import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  TIMEDATECTL_ARGS,
  clockSyncState,
  runCommand,
  type CommandRunner,
} from '../../src/system/clock.js';
import { buildCli } from '../helpers/cli.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('station-agent-clock-'));
});
afterEach(() => cleanup());

/** A runner that records its calls and answers as told. */
function runner(answer: () => Promise<{ stdout: string; exitCode: number }>) {
  const calls: { command: string; args: readonly string[]; timeoutMs: number }[] = [];
  const run: CommandRunner = (command, args, timeoutMs) => {
    calls.push({ command, args, timeoutMs });
    return answer();
  };
  return { run, calls };
}

describe('clockSyncState', () => {
  it("trusts timesyncd's synchronized file without asking timedatectl", async () => {
    const syncFile = path.join(dir, 'synchronized');
    writeFileSync(syncFile, '');
    const { run, calls } = runner(() => Promise.reject(new Error('must not be called')));
    expect(await clockSyncState({ syncFile, runCommand: run })).toBe('synchronized');
    expect(calls).toEqual([]);
  });

  it("asks timedatectl when the file is absent and systemd runs, and reads its yes/no", async () => {
    const syncFile = path.join(dir, 'absent');
    // Where systemd is the init system (an existing folder stands for /run/systemd/system).
    const systemdDir = dir;
    const yes = runner(() => Promise.resolve({ stdout: 'yes\n', exitCode: 0 }));
    expect(await clockSyncState({ syncFile, systemdDir, runCommand: yes.run, timeoutMs: 1234 })).toBe('synchronized');
    expect(yes.calls).toEqual([{ command: 'timedatectl', args: TIMEDATECTL_ARGS, timeoutMs: 1234 }]);
    expect(TIMEDATECTL_ARGS).toEqual(['show', '-p', 'NTPSynchronized', '--value']);

    const no = runner(() => Promise.resolve({ stdout: 'no\n', exitCode: 0 }));
    expect(await clockSyncState({ syncFile, systemdDir, runCommand: no.run })).toBe('unsynchronized');
  });

  it('says unknown without starting timedatectl where systemd is not the init system (a container), which it would ask', async () => {
    const { run, calls } = runner(() => Promise.resolve({ stdout: 'yes\n', exitCode: 0 }));
    expect(await clockSyncState({ syncFile: path.join(dir, 'absent'), systemdDir: path.join(dir, 'no-systemd'), runCommand: run })).toBe('unknown');
    expect(calls).toEqual([]);
  });

  it("says unknown when timedatectl is missing, fails or answers something else", async () => {
    const syncFile = path.join(dir, 'absent');
    const systemdDir = dir;
    const missing = runner(() => Promise.reject(Object.assign(new Error('spawn timedatectl ENOENT'), { code: 'ENOENT' })));
    expect(await clockSyncState({ syncFile, systemdDir, runCommand: missing.run })).toBe('unknown');
    expect(missing.calls).toHaveLength(1);
    // In a container without systemd: "System has not been booted with systemd", exit 1.
    const failing = runner(() => Promise.resolve({ stdout: '', exitCode: 1 }));
    expect(await clockSyncState({ syncFile, systemdDir, runCommand: failing.run })).toBe('unknown');
    const odd = runner(() => Promise.resolve({ stdout: 'maybe\n', exitCode: 0 }));
    expect(await clockSyncState({ syncFile, systemdDir, runCommand: odd.run })).toBe('unknown');
  });
});

describe('runCommand', () => {
  it('returns the output and exit status of a real command', async () => {
    expect(await runCommand(process.execPath, ['-e', 'process.stdout.write("yes\\n")'], 10_000)).toEqual({
      stdout: 'yes\n',
      exitCode: 0,
    });
    expect(await runCommand(process.execPath, ['-e', 'process.exit(3)'], 10_000)).toEqual({ stdout: '', exitCode: 3 });
  });

  it('rejects when the command does not exist or outlives its time limit', async () => {
    await expect(runCommand(path.join(dir, 'no-such-command'), [], 10_000)).rejects.toThrow(/did not run to its end/);
    await expect(runCommand(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], 200)).rejects.toThrow(
      /did not run to its end/,
    );
  });
});

/**
 * What the probe loads, in the compiled agent run as a process: `node:child_process` only
 * to ask timedatectl. On Raspberry Pi OS timesyncd's file answers, so the daemon and
 * `status` never load it (nothing else in them starts a process: the config check's child
 * and the `flac` program load it at their first use too).
 */
describe('the clock probe in a process of its own', () => {
  beforeAll(async () => {
    await buildCli();
  }, 180_000);

  const probe = (syncFile: string, systemdDir: string) => {
    const clock = pathToFileURL(path.join(REPO_ROOT, 'dist/system/clock.js')).href;
    const script = `const { clockSyncState } = await import(${JSON.stringify(clock)});
      const state = await clockSyncState({ syncFile: process.argv[1], systemdDir: process.argv[2] });
      console.log(JSON.stringify({ state, childProcess: process.moduleLoadList.includes('NativeModule child_process') }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, syncFile, systemdDir], { encoding: 'utf8', timeout: 30_000 });
    return JSON.parse(out) as { state: string; childProcess: boolean };
  };

  it("loads node:child_process only when timesyncd's file is absent and systemd's timedatectl must be asked", () => {
    const syncFile = path.join(dir, 'synchronized');
    writeFileSync(syncFile, '');
    expect(probe(syncFile, dir)).toEqual({ state: 'synchronized', childProcess: false });
    expect(probe(path.join(dir, 'absent'), dir)).toMatchObject({ childProcess: true });
    expect(probe(path.join(dir, 'absent'), path.join(dir, 'no-systemd'))).toEqual({ state: 'unknown', childProcess: false });
  });
});
