import { spawnSync } from 'node:child_process';

/**
 * The "Overall exposure level" that `systemd-analyze security --offline=yes` gives a unit
 * file (0.0 is the most locked down, 10.0 the least).
 */
export function exposureLevel(unitPath: string): number {
  const result = spawnSync('systemd-analyze', ['security', '--offline=yes', '--no-pager', unitPath], {
    encoding: 'utf8',
  });
  const output = `${result.stdout}${result.stderr}`;
  const match = /Overall exposure level for \S+: (\d+(?:\.\d+)?)/.exec(output);
  if (!match) throw new Error(`no "Overall exposure level" in systemd-analyze's output:\n${output}`);
  return Number(match[1]);
}

/** `systemd-analyze verify` on a unit file: its exit status and everything it printed. */
export function verifyUnit(unitPath: string): { status: number | null; output: string } {
  const result = spawnSync('systemd-analyze', ['verify', '--no-pager', unitPath], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}
