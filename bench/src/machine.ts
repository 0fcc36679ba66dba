import { closeSync, fsyncSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median } from './report.js';

/**
 * The machine a run came from: figures only compare on the same machine, and the
 * queue's `synchronous=FULL` commits cost one fsync each, so the disk's fsync time
 * is part of the context.
 */
export interface MachineInfo {
  /** CPUs this process may use (what `nproc` prints). */
  nproc: number;
  cpuModel: string;
  memoryMb: number;
  node: string;
  platform: string;
  kernel: string;
  /** Median time of appending 4 KiB to a file and fsyncing it (what a WAL commit does) in the benchmark's temporary folder. */
  fsyncMs: number;
  /** 1-minute load average at the start: other work on the machine shows here. */
  loadAverage: number;
}

export function machineInfo(tmpDir: string): MachineInfo {
  return {
    nproc: os.availableParallelism(),
    cpuModel: cpuModel(),
    memoryMb: Math.round(os.totalmem() / 1024 / 1024),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    kernel: os.release(),
    fsyncMs: fsyncTime(tmpDir),
    loadAverage: Math.round(os.loadavg()[0] * 100) / 100,
  };
}

function cpuModel(): string {
  try {
    const text = readFileSync('/proc/cpuinfo', 'utf8');
    // x86: "model name"; ARM (a Pi): "Model" or "Hardware", per-core "CPU part" otherwise.
    const m = /^model name\s*:\s*(.+)$/m.exec(text) ?? /^Model\s*:\s*(.+)$/m.exec(text) ?? /^Hardware\s*:\s*(.+)$/m.exec(text);
    if (m) return m[1].trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

/**
 * The disk's commit cost now. On a shared or virtual disk it moves by an order of
 * magnitude from minute to minute, so figures bound by commits carry the value
 * measured next to them.
 */
export function fsyncTime(dir: string, rounds = 50): number {
  const file = path.join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(4096, 1);
  const times: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const t = performance.now();
      writeSync(fd, block, 0, block.length, i * block.length);
      fsyncSync(fd);
      times.push(performance.now() - t);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  return Math.round(median(times) * 1000) / 1000;
}
