import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DrainChildArgs, DrainChildResult } from './drain-child.js';

/**
 * What a drain costs the SD card: fsyncs and bytes written to the queue database
 * (`queue.db` and its WAL), counted from the system calls themselves. The agent's drain
 * runs once more under `strace -f -y -e trace=pwrite64,write,fsync,fdatasync`, which
 * logs each such call with the path of its file descriptor; the calls on the queue's
 * files are summed. Tracing slows the process, so this run is not the timed one.
 * Null when strace is not installed or not allowed (ptrace restricted).
 */
export interface WriteCost {
  items: number;
  /** fsync + fdatasync on queue.db, queue.db-wal and the dataDir (SQLite syncs the folder too). */
  fsyncs: number;
  /** Bytes of successful write/pwrite64 calls on queue.db and queue.db-wal. */
  bytes: number;
  /** The same, per file name (queue.db, queue.db-wal, ...). */
  byFile: Record<string, { fsyncs: number; bytes: number }>;
}

export async function tracedDrain(childScript: string, args: DrainChildArgs, traceFile: string, queueFile: string): Promise<WriteCost | null> {
  const strace = ['-f', '-qq', '-y', '-e', 'signal=none', '-e', 'trace=pwrite64,write,fsync,fdatasync', '-o', traceFile];
  let stdout: string;
  try {
    stdout = await new Promise<string>((resolve, reject) => {
      execFile('strace', [...strace, process.execPath, childScript, JSON.stringify(args)], { maxBuffer: 16 * 1024 * 1024 }, (err, out, errOut) => {
        if (err) reject(new Error(`${err.message}: ${errOut.slice(-2000)}`));
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
 * and `123 fdatasync(12</d/queue.db-wal>) = 0` over the files of the queue at `queueFile`.
 */
export function countQueueWrites(trace: string, queueFile: string): Omit<WriteCost, 'items'> {
  const dbName = path.basename(queueFile);
  const dir = path.dirname(queueFile);
  const byFile: WriteCost['byFile'] = {};
  let fsyncs = 0;
  let bytes = 0;
  const call = /^(?:\d+\s+)?(pwrite64|write|fsync|fdatasync)\(\d+<([^>]+)>.*\)\s+=\s+(-?\d+)/;
  for (const text of trace.split('\n')) {
    const m = call.exec(text);
    if (!m) continue;
    const [, name, file, ret] = m;
    const isQueue = path.dirname(file) === dir && path.basename(file).startsWith(dbName);
    const isDir = file === dir;
    if (!isQueue && !isDir) continue;
    const key = isDir ? `${path.basename(dir)}/` : path.basename(file);
    const entry = (byFile[key] ??= { fsyncs: 0, bytes: 0 });
    if (name === 'fsync' || name === 'fdatasync') {
      entry.fsyncs++;
      fsyncs++;
    } else if (Number(ret) > 0) {
      entry.bytes += Number(ret);
      bytes += Number(ret);
    }
  }
  return { fsyncs, bytes, byFile };
}
