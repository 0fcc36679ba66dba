import { spawnSync } from 'node:child_process';

/** Whether a command is on the PATH (tests that need it are skipped, saying so, when not). */
export function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}
