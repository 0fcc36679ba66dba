import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Child processes of the benchmark and what Linux says about them in /proc. The
 * agent, the local service and the baselines each run in their own process, so
 * that one's CPU never competes with another's event loop and each one's memory
 * peak (VmHWM) is its own.
 */

/** This module's folder: bench/dist/bench/src/ in the build the benchmark runs from. */
export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
/** The repository: the nearest folder above with a package.json (bench/ has none of its own). */
export const REPO_ROOT = repositoryRoot(BENCH_DIR);
/** `station-agent` as the package runs it: the agent's own build, the one that ships. */
export const CLI_MAIN = path.join(REPO_ROOT, 'dist/bundle/main.js');
/** tsc's own modules, which the bundle is made from: the CLI without the bundle. */
export const CLI_MODULES_MAIN = path.join(REPO_ROOT, 'dist/cli/main.js');
/** Preloaded (`node -r`) to run the daemon with TurboFan on: drops its `--no-opt` (src/system/v8-flags.ts). */
export const TURBOFAN_ON = path.join(REPO_ROOT, 'bench/turbofan-on.cjs');

function repositoryRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** A `/proc/<pid>/status` field in kB (VmRSS, VmHWM), or null when the process is gone. */
export function procStatusKb(pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : null;
}

/**
 * A process's memory from /proc/<pid>/status, kB: VmRSS (resident), its split into
 * RssAnon (heap, stacks: what the process allocated) and RssFile (file-backed pages of
 * the binary, addons and mapped files it touched), and VmHWM (the peak VmRSS so far).
 * Null when the process is gone.
 */
export interface MemoryKb {
  vmRss: number;
  rssAnon: number;
  rssFile: number;
  vmHwm: number;
}

export function procMemoryKb(pid: number | 'self'): MemoryKb | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN);
  const m = { vmRss: field('VmRSS'), rssAnon: field('RssAnon'), rssFile: field('RssFile'), vmHwm: field('VmHWM') };
  return Number.isNaN(m.vmRss) ? null : m;
}

/** `VmRSS 89.0 MB (RssAnon 35.0, RssFile 54.0)`. */
export function formatMemory(m: MemoryKb, rss = m.vmRss): string {
  return `${(rss / 1024).toFixed(1)} MB (RssAnon ${(m.rssAnon / 1024).toFixed(1)}, RssFile ${(m.rssFile / 1024).toFixed(1)})`;
}

/** `RssAnon 35.0 MB, RssFile 54.0 MB`: the split a memory figure's name shows. */
export function split(m: MemoryKb): string {
  return `RssAnon ${(m.rssAnon / 1024).toFixed(1)} MB, RssFile ${(m.rssFile / 1024).toFixed(1)} MB`;
}

/** A memory figure's detail: MB, with the split. */
export function memoryDetail(m: MemoryKb | null): Record<string, number> | null {
  return m && { vmRssMb: m.vmRss / 1024, rssAnonMb: m.rssAnon / 1024, rssFileMb: m.rssFile / 1024, vmHwmMb: m.vmHwm / 1024 };
}

/**
 * Samples a process's memory every `everyMs` until stopped, keeping the sample of the
 * largest VmRSS: the kernel keeps only the peak of the total (VmHWM), so the split of a
 * peak into RssAnon and RssFile comes from the sample closest to it. `peak()` is that
 * sample with `vmHwm` as the kernel's peak (read at the last sample).
 */
export class MemorySampler {
  private best: MemoryKb | null = null;
  private last: MemoryKb | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    everyMs = 100,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.sample();
  }

  sample(): void {
    const m = procMemoryKb(this.pid);
    if (!m) return;
    this.last = m;
    if (!this.best || m.vmRss > this.best.vmRss) this.best = m;
  }

  /** Stops sampling; the peak sample (null if the process was never seen), vmHwm the kernel's peak. */
  stop(): MemoryKb | null {
    this.sample();
    clearInterval(this.timer);
    return this.best && { ...this.best, vmHwm: Math.max(this.last?.vmHwm ?? 0, this.best.vmHwm) };
  }
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on every Linux port Node runs on). */
export const CLOCK_TICKS_PER_SEC = 100;

/**
 * User + system CPU time of a process in seconds, from /proc/<pid>/stat; null when it is
 * gone. `withChildren`: plus that of its children that have exited and been waited for
 * (cutime, cstime: the agent's `flac` runs).
 */
export function cpuSeconds(pid: number, withChildren = false): number | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  const own = Number(fields[11]) + Number(fields[12]);
  const children = withChildren ? Number(fields[13]) + Number(fields[14]) : 0;
  return (own + children) / CLOCK_TICKS_PER_SEC;
}

export interface Child {
  process: ChildProcess;
  pid: number;
  /** Everything the child wrote on stdout so far (also while it runs). */
  stdout(): string;
  /** The last 16 KiB of its stderr, for error messages. */
  stderrTail(): string;
  /** Resolves with the exit code (or the signal's name) once the child is gone. */
  exited: Promise<number | string>;
  /** Resolves with the first stdout line matching `pattern`; rejects if the child exits first or `timeoutMs` passes. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once gone. */
  stop(graceMs?: number): Promise<void>;
}

const TAIL_BYTES = 16 * 1024;

export function startNode(args: readonly string[], options: SpawnOptions & { stdoutLimit?: number } = {}): Child {
  return startProcess(process.execPath, args, options);
}

/**
 * `node <args>` inside `groups` (cgroups; a null one is skipped) from before node starts: a
 * shell waits for a line, is put in the groups, then execs node. What node reads of its group
 * at start is then the group's: the memory limit V8 sizes its heap from, and every CPU tick of
 * the start-up counted in a cpuacct group.
 */
export function startNodeIn(groups: readonly ({ add(pid: number): void } | null)[], args: readonly string[], options: SpawnOptions & { stdoutLimit?: number } = {}): Child {
  const child = startProcess('/bin/sh', ['-c', 'read go && exec "$0" "$@"', process.execPath, ...args], { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
  for (const group of groups) group?.add(child.pid);
  child.process.stdin?.write('go\n');
  return child;
}

/** Any program as a {@link Child} (`startNode` runs this Node); e.g. the agent under strace. */
export function startProcess(command: string, args: readonly string[], options: SpawnOptions & { stdoutLimit?: number } = {}): Child {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (child.pid === undefined) throw new Error(`could not start ${command} ${args.join(' ')}`);
  let out = '';
  let err = '';
  const limit = options.stdoutLimit ?? 4 * 1024 * 1024;
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out = (out + chunk).slice(-limit);
    for (const l of listeners) l();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err = (err + chunk).slice(-TAIL_BYTES);
  });
  let code: number | string | null = null;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (c, signal) => {
      code = c ?? signal ?? 'unknown';
      for (const l of listeners) l();
      resolve(code);
    });
  });
  const waitForLine = (pattern: RegExp, timeoutMs: number) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`no line matching ${String(pattern)} within ${timeoutMs} ms: ${err.slice(-2000)}`)), timeoutMs);
      const check = () => {
        const m = pattern.exec(out);
        if (m) done(null, m);
        else if (code !== null) done(new Error(`${path.basename(command)} ${args[0]} exited (${code}) before printing ${String(pattern)}: ${err.slice(-2000)}`));
      };
      const done = (e: Error | null, m?: RegExpExecArray) => {
        clearTimeout(timer);
        listeners.delete(check);
        if (e) reject(e);
        else resolve(m!);
      };
      listeners.add(check);
      check();
    });
  const stop = async (graceMs = 10_000) => {
    if (code !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { process: child, pid: child.pid, stdout: () => out, stderrTail: () => err, exited, waitForLine, stop };
}

/** Why a child is gone, for an error message: its exit code or signal and the end of its output. */
export async function goneReason(name: string, child: Child): Promise<string> {
  const code = await Promise.race([child.exited, sleep(1_000).then(() => 'still running')]);
  const out = `${child.stderrTail()}\n${child.stdout()}`.trim().slice(-1500);
  return `${name} (pid ${child.pid}) ended early (${code})${out ? `: ${out}` : ''}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
