import { access } from 'node:fs/promises';

/**
 * Is the system clock trustworthy? A Raspberry Pi has no real-time clock: after boot it
 * runs from the last saved time until NTP syncs, so timestamps taken then can be hours
 * or days off. The uploader holds items back while the clock is unsynchronized
 * (`clock.requireSync`), and always holds back implausible timestamps (`plausible-time.ts`).
 *
 * Probes, in order:
 * 1. systemd-timesyncd touches `/run/systemd/timesync/synchronized` once it has synced.
 * 2. Where systemd is the init system (`/run/systemd/system` exists, sd_booted(3)'s test),
 *    `timedatectl show -p NTPSynchronized --value` answers yes/no for any NTP daemon
 *    (chrony, ntpd) through the kernel's sync flag. Without systemd it cannot answer (it asks
 *    systemd-timedated over D-Bus): it is not started, which spares a process per question
 *    in a container or on a system with another init.
 * 3. Neither available: 'unknown', and the caller trusts the clock but keeps the
 *    plausibility check.
 */

export type ClockSyncState = 'synchronized' | 'unsynchronized' | 'unknown';

export interface CommandResult {
  stdout: string;
  exitCode: number;
}

/** Runs a command without a shell; rejects when it cannot be started or outlives `timeoutMs`. */
export type CommandRunner = (command: string, args: readonly string[], timeoutMs: number) => Promise<CommandResult>;

export interface ClockProbeOptions {
  /** Default `/run/systemd/timesync/synchronized`. */
  syncFile?: string;
  /** Present only where systemd is the init system; default `/run/systemd/system`. */
  systemdDir?: string;
  runCommand?: CommandRunner;
  /** Time limit of `timedatectl`; default 2000 ms (it waits on D-Bus, which may hang). */
  timeoutMs?: number;
}

const TIMESYNC_SYNCHRONIZED_FILE = '/run/systemd/timesync/synchronized';
const SYSTEMD_RUNTIME_DIR = '/run/systemd/system';
export const TIMEDATECTL_ARGS = ['show', '-p', 'NTPSynchronized', '--value'] as const;

export async function clockSyncState(options: ClockProbeOptions = {}): Promise<ClockSyncState> {
  try {
    await access(options.syncFile ?? TIMESYNC_SYNCHRONIZED_FILE);
    return 'synchronized';
  } catch {
    // Not timesyncd, or not synced yet: ask timedatectl, where systemd can answer it.
  }
  try {
    await access(options.systemdDir ?? SYSTEMD_RUNTIME_DIR);
  } catch {
    return 'unknown';
  }
  const run = options.runCommand ?? runCommand;
  let result: CommandResult;
  try {
    result = await run('timedatectl', TIMEDATECTL_ARGS, options.timeoutMs ?? 2_000);
  } catch {
    return 'unknown';
  }
  if (result.exitCode !== 0) return 'unknown';
  const answer = result.stdout.trim();
  if (answer === 'yes') return 'synchronized';
  if (answer === 'no') return 'unsynchronized';
  return 'unknown';
}

/**
 * The default `CommandRunner`: `execFile` with a time limit. A non-zero exit resolves with its
 * code. `node:child_process` is loaded here, at the first command: where timesyncd's file
 * answers the probe (Raspberry Pi OS) or there is no systemd to ask, the daemon and `status`
 * never load it (some 7 ms of a start here, more on a Pi).
 */
export async function runCommand(command: string, args: readonly string[], timeoutMs: number): Promise<CommandResult> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    execFile(command, [...args], { timeout: timeoutMs, encoding: 'utf8' }, (err, stdout) => {
      if (!err) return resolve({ stdout, exitCode: 0 });
      // A numeric code is the exit status; a string code (ENOENT) or a kill means it did not run to its end.
      if (typeof err.code === 'number' && !err.killed) return resolve({ stdout, exitCode: err.code });
      reject(new Error(`${command} did not run to its end: ${err.message}`, { cause: err }));
    });
  });
}
