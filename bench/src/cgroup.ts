import { mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A cgroup v1 `cpu` child group with a CFS quota: the processes put in it (and their
 * children: the agent's `flac`) share `cores` of CPU time, a stand-in for a Pi's slow
 * core. Null where cgroup v1 is not writable (then the figures are taken unthrottled,
 * and say so).
 */
export interface CpuGroup {
  name: string;
  add(pid: number): void;
  remove(): void;
}

const CPU_ROOT = '/sys/fs/cgroup/cpu';
const PERIOD_US = 100_000;

export function createCpuGroup(name: string, cores: number): CpuGroup | null {
  const dir = path.join(CPU_ROOT, `${name}-${process.pid}`);
  try {
    mkdirSync(dir);
  } catch {
    return null;
  }
  try {
    writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(Math.round(PERIOD_US * cores)));
  } catch {
    rmdirSync(dir);
    return null;
  }
  return {
    name: path.basename(dir),
    add: (pid) => writeFileSync(path.join(dir, 'cgroup.procs'), String(pid)),
    // Only an empty group can go: call it once its processes have exited.
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {
        // still busy (a process did not exit): left for the next boot
      }
    },
  };
}
