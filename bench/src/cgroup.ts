import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * cgroup v1 child groups, one per run: a `cpu` group with a CFS quota (the processes
 * put in it, and their children such as the agent's `flac`, share `cores` of CPU time:
 * a stand-in for a Pi's slow core) and a `memory` group with a limit (a stand-in for
 * what the analyzer leaves of a Pi Zero 2 W's 512 MB). Null where cgroup v1 is not
 * writable (then the figures are taken without the limit, and say so).
 */
export interface Cgroup {
  name: string;
  add(pid: number): void;
  remove(): void;
}

export interface MemoryGroup extends Cgroup {
  /** The group's peak charge (memory.max_usage_in_bytes: its processes' memory and the page cache they filled), bytes. */
  maxUsageBytes(): number | null;
}

/** The group's CPU time so far (cpuacct.usage: all its processes and their children, exited ones included), seconds. */
export interface AccountingGroup extends Cgroup {
  cpuSeconds(): number;
}

const CPU_ROOT = '/sys/fs/cgroup/cpu';
const CPUACCT_ROOT = '/sys/fs/cgroup/cpuacct';
const MEMORY_ROOT = '/sys/fs/cgroup/memory';
const PERIOD_US = 100_000;

export function createCpuGroup(name: string, cores: number): Cgroup | null {
  return createGroup(CPU_ROOT, name, {
    'cpu.cfs_period_us': String(PERIOD_US),
    'cpu.cfs_quota_us': String(Math.round(PERIOD_US * cores)),
  });
}

export function createMemoryGroup(name: string, limitBytes: number): MemoryGroup | null {
  const group = createGroup(MEMORY_ROOT, name, { 'memory.limit_in_bytes': String(limitBytes) });
  if (!group) return null;
  const dir = path.join(MEMORY_ROOT, group.name);
  return {
    ...group,
    maxUsageBytes: () => {
      try {
        return Number(readFileSync(path.join(dir, 'memory.max_usage_in_bytes'), 'utf8').trim());
      } catch {
        return null;
      }
    },
  };
}

export function createCpuacctGroup(name: string): AccountingGroup | null {
  const group = createGroup(CPUACCT_ROOT, name, {});
  if (!group) return null;
  const usage = path.join(CPUACCT_ROOT, group.name, 'cpuacct.usage');
  return { ...group, cpuSeconds: () => Number(readFileSync(usage, 'utf8').trim()) / 1e9 };
}

/**
 * A Pi-sized box for one process tree: a cpu group with a quota of `cores`, a cpuacct
 * group that counts its CPU time, a memory group limited to `memoryBytes`. Null where
 * cgroup v1 is not writable (none of the three is then made).
 */
export interface PiBox {
  name: string;
  add(pid: number): void;
  cpuSeconds(): number;
  maxUsageBytes(): number | null;
  remove(): void;
}

export function createPiBox(name: string, cores: number, memoryBytes: number): PiBox | null {
  const cpu = createCpuGroup(name, cores);
  const acct = cpu && createCpuacctGroup(name);
  const memory = acct && createMemoryGroup(name, memoryBytes);
  if (!cpu || !acct || !memory) {
    cpu?.remove();
    acct?.remove();
    return null;
  }
  return {
    name: cpu.name,
    add: (pid) => {
      for (const g of [cpu, acct, memory]) g.add(pid);
    },
    cpuSeconds: () => acct.cpuSeconds(),
    maxUsageBytes: () => memory.maxUsageBytes(),
    remove: () => {
      for (const g of [cpu, acct, memory]) g.remove();
    },
  };
}

function createGroup(root: string, name: string, settings: Record<string, string>): Cgroup | null {
  const dir = path.join(root, `${name}-${process.pid}`);
  try {
    mkdirSync(dir);
  } catch {
    return null;
  }
  try {
    for (const [file, value] of Object.entries(settings)) writeFileSync(path.join(dir, file), value);
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
