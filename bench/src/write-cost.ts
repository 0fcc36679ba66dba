import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DrainChildArgs, DrainChildResult } from './drain-child.js';

/**
 * What the agent costs the SD card, counted from the system calls themselves: a process
 * runs under `strace -f -y` ({@link straceArgs}), which logs every write and sync call of
 * it and its children (threads, the `flac` program) with the path behind each file
 * descriptor. The calls are then summed per file. Tracing slows the process, so a traced
 * run is never a timed one. Null where strace is not installed.
 */

/**
 * Every call that puts bytes into a file or makes them durable. `-ttt`: each line starts
 * with the epoch time (µs), so a run can be cut into phases by the bench's own clock;
 * `-qq` and `signal=none` keep the log to the calls.
 */
export const TRACED_CALLS = ['write', 'pwrite64', 'writev', 'pwritev', 'pwritev2', 'copy_file_range', 'sendfile', 'fsync', 'fdatasync', 'sync_file_range', 'syncfs'] as const;
/** strace's options before the traced command: `calls` (by default TRACED_CALLS) of it and its children, into `traceFile`. */
export function straceArgs(traceFile: string, calls: readonly string[] = TRACED_CALLS): string[] {
  return ['-f', '-qq', '-y', '-ttt', '-e', 'signal=none', '-e', `trace=${calls.join(',')}`, '-o', traceFile];
}

const SYNC_CALLS = new Set(['fsync', 'fdatasync', 'syncfs']);

/** One traced call: its name, the file it wrote or synced (null: a pipe, socket, ...), what it returned. */
export interface TracedCall {
  pid: number;
  /** Epoch seconds (null when the trace has no `-ttt` times). */
  time: number | null;
  name: string;
  /** The file written or synced, as strace's `-y` shows it. */
  file: string | null;
  /** The call's return value (bytes written, 0 for a sync), null when the process died inside it. */
  ret: number | null;
}

const LINE = /^(\d+)\s+(?:(\d+\.\d+)\s+)?(.*)$/;
const START = /^([a-z_0-9]+)\((.*)$/;
const RESUMED = /^<\.\.\. ([a-z_0-9]+) resumed>(.*)$/;
const FD_PATH = /\d+<([^>]*)>/g;

/**
 * Parses `strace -f -y [-ttt]` output. A call that another thread interrupts is split over
 * two lines (`fsync(12</q.db> <unfinished ...>`, later `<... fsync resumed>) = 0`): the
 * two halves are joined by pid, the file from the first, the result from the second.
 */
export function parseTrace(text: string): TracedCall[] {
  const calls: TracedCall[] = [];
  const open = new Map<number, { name: string; time: number | null; args: string }>();
  for (const raw of text.split('\n')) {
    const line = LINE.exec(raw.trim());
    if (!line) continue;
    const pid = Number(line[1]);
    const time = line[2] ? Number(line[2]) : null;
    const rest = line[3];
    let name: string;
    let args: string;
    let callTime = time;
    const resumed = RESUMED.exec(rest);
    if (resumed) {
      const started = open.get(pid);
      open.delete(pid);
      if (!started || started.name !== resumed[1]) continue;
      name = started.name;
      args = started.args + resumed[2];
      callTime = started.time;
    } else {
      const start = START.exec(rest);
      if (!start) continue;
      name = start[1];
      args = start[2];
      if (args.endsWith('<unfinished ...>')) {
        open.set(pid, { name, time, args: args.slice(0, -'<unfinished ...>'.length) });
        continue;
      }
    }
    calls.push({ pid, time: callTime, name, file: writtenFile(name, args), ret: resultOf(args) });
  }
  // Calls still open when the trace ended (the process was killed inside them): a sync was still made.
  for (const [pid, c] of open) calls.push({ pid, time: c.time, name: c.name, file: writtenFile(c.name, c.args), ret: null });
  return calls;
}

/** The return value: after the last `) = ` (the written data, shown first, may hold that text too). */
function resultOf(args: string): number | null {
  const at = args.lastIndexOf(') = ');
  if (at < 0) return null;
  const n = Number.parseInt(args.slice(at + 4), 10);
  return Number.isNaN(n) ? null : n;
}

/** The file a call writes: the first descriptor's, except copy_file_range (its third argument, the second descriptor). */
function writtenFile(name: string, args: string): string | null {
  const paths = [...args.matchAll(FD_PATH)].map((m) => m[1]);
  const file = name === 'copy_file_range' ? paths[1] : paths[0];
  // A file deleted while still open shows as `/path (deleted)`.
  return file === undefined || !file.startsWith('/') ? null : file.replace(/ \(deleted\)$/, '');
}

export function isSync(call: TracedCall): boolean {
  return SYNC_CALLS.has(call.name);
}

/** Bytes a call put into its file: its return value when it succeeded, else 0 (a sync writes none of its own). */
export function bytesWritten(call: TracedCall): number {
  return !isSync(call) && call.name !== 'sync_file_range' && call.ret !== null && call.ret > 0 ? call.ret : 0;
}

export interface FileCount {
  fsyncs: number;
  bytes: number;
}

/** fsync + fdatasync calls and bytes written, summed per key of `keyOf` (null: not counted). */
export function sumByKey(calls: readonly TracedCall[], keyOf: (file: string) => string | null): Record<string, FileCount> {
  const out: Record<string, FileCount> = {};
  for (const c of calls) {
    if (c.file === null) continue;
    const key = keyOf(c.file);
    if (key === null) continue;
    const entry = (out[key] ??= { fsyncs: 0, bytes: 0 });
    if (isSync(c)) entry.fsyncs++;
    entry.bytes += bytesWritten(c);
  }
  return out;
}

/** What a drain costs the queue database. */
export interface WriteCost {
  items: number;
  /** fsync + fdatasync on queue.db, queue.db-wal and the dataDir (SQLite syncs the folder too). */
  fsyncs: number;
  /** Bytes of successful writes to queue.db and queue.db-wal. */
  bytes: number;
  /** The same, per file name (queue.db, queue.db-wal, ...). */
  byFile: Record<string, FileCount>;
}

/**
 * The agent's drain (drain-child.js) once more under strace: fsyncs and bytes written to
 * the queue database per uploaded item. Null where strace is not installed.
 */
export async function tracedDrain(childScript: string, args: DrainChildArgs, traceFile: string, queueFile: string): Promise<WriteCost | null> {
  let stdout: string;
  try {
    stdout = await new Promise<string>((resolve, reject) => {
      execFile('strace', [...straceArgs(traceFile), process.execPath, childScript, JSON.stringify(args)], { maxBuffer: 16 * 1024 * 1024 }, (err, out, errOut) => {
        if (err) reject(Object.assign(new Error(`${err.message}: ${errOut.slice(-2000)}`), { code: err.code }));
        else resolve(out);
      });
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const line = stdout.trim().split('\n').pop() ?? '';
  const result = JSON.parse(line) as DrainChildResult;
  return { items: result.items, ...countQueueWrites(readFileSync(traceFile, 'utf8'), queueFile) };
}

/**
 * Sums strace lines such as `123 pwrite64(12</d/queue.db-wal>, "..."..., 4152, 8272) = 4152`
 * and `123 fdatasync(12</d/queue.db-wal>) = 0` over the files of the queue at `queueFile`
 * and syncs of its folder.
 */
export function countQueueWrites(trace: string, queueFile: string): Omit<WriteCost, 'items'> {
  const dbName = path.basename(queueFile);
  const dir = path.dirname(queueFile);
  const byFile = sumByKey(parseTrace(trace), (file) => {
    if (file === dir) return `${path.basename(dir)}/`;
    return path.dirname(file) === dir && path.basename(file).startsWith(dbName) ? path.basename(file) : null;
  });
  let fsyncs = 0;
  let bytes = 0;
  for (const c of Object.values(byFile)) {
    fsyncs += c.fsyncs;
    bytes += c.bytes;
  }
  return { fsyncs, bytes, byFile };
}
