import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  TIMEDATECTL_ARGS,
  clockSyncState,
  runCommand,
  type CommandRunner,
} from '../../src/system/clock.js';
import { tempDir } from '../helpers/paths.js';

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

  it("asks timedatectl when the file is absent, and reads its yes/no", async () => {
    const syncFile = path.join(dir, 'absent');
    const yes = runner(() => Promise.resolve({ stdout: 'yes\n', exitCode: 0 }));
    expect(await clockSyncState({ syncFile, runCommand: yes.run, timeoutMs: 1234 })).toBe('synchronized');
    expect(yes.calls).toEqual([{ command: 'timedatectl', args: TIMEDATECTL_ARGS, timeoutMs: 1234 }]);
    expect(TIMEDATECTL_ARGS).toEqual(['show', '-p', 'NTPSynchronized', '--value']);

    const no = runner(() => Promise.resolve({ stdout: 'no\n', exitCode: 0 }));
    expect(await clockSyncState({ syncFile, runCommand: no.run })).toBe('unsynchronized');
  });

  it("says unknown when timedatectl is missing, fails or answers something else", async () => {
    const syncFile = path.join(dir, 'absent');
    const missing = runner(() => Promise.reject(Object.assign(new Error('spawn timedatectl ENOENT'), { code: 'ENOENT' })));
    expect(await clockSyncState({ syncFile, runCommand: missing.run })).toBe('unknown');
    // In a container without systemd: "System has not been booted with systemd", exit 1.
    const failing = runner(() => Promise.resolve({ stdout: '', exitCode: 1 }));
    expect(await clockSyncState({ syncFile, runCommand: failing.run })).toBe('unknown');
    const odd = runner(() => Promise.resolve({ stdout: 'maybe\n', exitCode: 0 }));
    expect(await clockSyncState({ syncFile, runCommand: odd.run })).toBe('unknown');
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
