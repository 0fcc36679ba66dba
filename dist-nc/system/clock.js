import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
export const TIMESYNC_SYNCHRONIZED_FILE = '/run/systemd/timesync/synchronized';
export const TIMEDATECTL_ARGS = ['show', '-p', 'NTPSynchronized', '--value'];
export async function clockSyncState(options = {}) {
    try {
        await access(options.syncFile ?? TIMESYNC_SYNCHRONIZED_FILE);
        return 'synchronized';
    }
    catch {
    }
    const run = options.runCommand ?? runCommand;
    let result;
    try {
        result = await run('timedatectl', TIMEDATECTL_ARGS, options.timeoutMs ?? 2_000);
    }
    catch {
        return 'unknown';
    }
    if (result.exitCode !== 0)
        return 'unknown';
    const answer = result.stdout.trim();
    if (answer === 'yes')
        return 'synchronized';
    if (answer === 'no')
        return 'unsynchronized';
    return 'unknown';
}
export function runCommand(command, args, timeoutMs) {
    return new Promise((resolve, reject) => {
        execFile(command, [...args], { timeout: timeoutMs, encoding: 'utf8' }, (err, stdout) => {
            if (!err)
                return resolve({ stdout, exitCode: 0 });
            if (typeof err.code === 'number' && !err.killed)
                return resolve({ stdout, exitCode: err.code });
            reject(new Error(`${command} did not run to its end: ${err.message}`, { cause: err }));
        });
    });
}
