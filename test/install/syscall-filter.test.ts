import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import {
  allowedSyscalls,
  compileLauncher,
  launcherSource,
  readSyscallGroups,
  readUnitSyscallSettings,
} from './syscall-sandbox.js';
import { hasCommand } from './commands.js';

/**
 * Node under the units' system call restrictions. The test machines do not run systemd
 * as PID 1, so the unit's SystemCallFilter= and RestrictAddressFamilies= are rebuilt as
 * a seccomp filter (syscall-sandbox.ts) and /proc is mounted as ProcSubset=pid and
 * ProtectProc=invisible give it; then sandbox-workload.js exercises what the agent
 * does: SQLite, inotify, HTTP with name resolution, WebAssembly in a worker thread.
 */

const UNITS = ['systemd/station-agent.service', 'systemd/station-agent@.service'];
const WORKLOAD = path.join(REPO_ROOT, 'test/install/sandbox-workload.js');

/**
 * The service never runs as root (User= is the analyzer's user), and code paths differ:
 * SQLite, for one, chowns its journal when the effective user is root (@chown is in
 * @privileged). So when the tests run as root, the workload runs in a user namespace
 * where it is user 1000 (mapped onto root outside: it can still read this tree and write
 * the temporary folders).
 */
const runningAsRoot = process.getuid?.() === 0;
const asServiceUser = (command: string[]): string[] =>
  runningAsRoot ? ['unshare', '--user', '--map-user=1000', '--map-group=1000', ...command] : command;

function canRunAsServiceUser(): boolean {
  if (!runningAsRoot) return true;
  const [command, ...args] = asServiceUser(['true']);
  return hasCommand('unshare') && spawnSync(command, args).status === 0;
}

const canBuild = hasCommand('systemd-analyze') && hasCommand('cc') && canRunAsServiceUser();

function run(
  command: string,
  args: string[],
): { status: number | null; signal: NodeJS.Signals | null; output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, signal: result.signal, output: `${result.stdout}${result.stderr}` };
}

describe.skipIf(!canBuild)('the units\' system call filter (needs systemd-analyze, a C compiler and, as root, user namespaces)', () => {
  const temp = tempDir('station-agent-seccomp-');
  let groups: Map<string, string[]>;

  beforeAll(() => {
    groups = readSyscallGroups();
  });
  afterAll(() => temp.cleanup());

  for (const unit of UNITS) {
    describe(unit, () => {
      let launcher: string;

      beforeAll(() => {
        const settings = readUnitSyscallSettings(readFileSync(path.join(REPO_ROOT, unit), 'utf8'));
        expect(settings.filters).toEqual(['@system-service @pkey', '~@privileged @resources']);
        const allowed = allowedSyscalls(settings.filters, groups);
        expect(allowed).toContain('socket');
        expect(allowed).not.toContain('setpriority');
        const dir = temp.dir + '/' + path.basename(unit).replace('@', '-at');
        spawnSync('mkdir', ['-p', dir]);
        launcher = compileLauncher(dir, launcherSource(allowed, settings.addressFamilies));
      });

      it('kills a process that makes a forbidden call (the filter is in force)', () => {
        const [command, ...args] = asServiceUser([launcher, process.execPath, '-e', 'require("node:os").setPriority(10)']);
        const { signal, output } = run(command, args);
        expect(signal, output).toBe('SIGSYS');
      });

      it('lets Node do everything the agent does', () => {
        const work = tempDir('station-agent-workload-');
        try {
          const [command, ...args] = asServiceUser([launcher, process.execPath, WORKLOAD, work.dir, REPO_ROOT]);
          const { status, output } = run(command, args);
          expect(output).toContain('workload: all checks passed');
          expect(status, output).toBe(0);
        } finally {
          work.cleanup();
        }
      });
    });
  }
});

describe.skipIf(!canBuild)('MemoryDenyWriteExecute=yes (needs systemd-analyze, a C compiler and, as root, user namespaces)', () => {
  it('aborts Node, which is why the units leave it off', () => {
    const temp = tempDir('station-agent-mdwe-');
    try {
      const text = readFileSync(path.join(REPO_ROOT, 'systemd/station-agent.service'), 'utf8');
      const settings = readUnitSyscallSettings(text);
      const allowed = allowedSyscalls(settings.filters, readSyscallGroups());
      const launcher = compileLauncher(
        temp.dir,
        launcherSource(allowed, settings.addressFamilies, { memoryDenyWriteExecute: true }),
      );
      // A loop hot enough for V8 to compile it to machine code.
      const script = 'let s = 0; for (let i = 0; i < 1e7; i++) s += i % 7; console.log(s)';
      const [command, ...args] = asServiceUser([launcher, process.execPath, '-e', script]);
      const { status, output } = run(command, args);
      expect(status, output).not.toBe(0);
    } finally {
      temp.cleanup();
    }
  });
});

/** Whether this machine lets an unprivileged user namespace mount a procfs with subset=pid. */
function canMountProcSubset(): boolean {
  if (!hasCommand('unshare')) return false;
  const probe = spawnSync(
    'unshare',
    ['--user', '--map-root-user', '--mount', '--pid', '--fork', 'sh', '-c',
      'mount -t proc -o subset=pid,hidepid=invisible proc /proc && test ! -e /proc/meminfo'],
    { encoding: 'utf8' },
  );
  return probe.status === 0;
}

describe.skipIf(!canMountProcSubset())('ProcSubset=pid and ProtectProc=invisible (needs user namespaces)', () => {
  it('lets Node do everything the agent does without /proc/meminfo, /proc/stat, /proc/cpuinfo', () => {
    const work = tempDir('station-agent-workload-');
    try {
      const script =
        'mount -t proc -o subset=pid,hidepid=invisible proc /proc && test ! -e /proc/cpuinfo && exec "$@"';
      const { status, output } = run('unshare', [
        '--user', '--map-root-user', '--mount', '--pid', '--fork', 'sh', '-c', script, 'sh',
        process.execPath, WORKLOAD, work.dir, REPO_ROOT,
      ]);
      expect(output).toContain('workload: all checks passed');
      expect(status, output).toBe(0);
    } finally {
      work.cleanup();
    }
  });
});
