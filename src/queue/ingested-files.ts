import type { Queue } from './db.js';

/**
 * The analyzer's files the agent has finished with, by path, size and modification
 * time. The watcher ignores them (so it keeps no state for a year of output), and
 * a rescan or a backfill of the same folder skips them. A file that changes (new
 * size or mtime) is looked at again. The retention sweep forgets the rows of files gone
 * for good once older than `queue.retainDays` (queue/forget-gone-files.ts).
 */
export type FileOutcome = 'queued' | 'no-detections' | 'error' | 'discarded';

export function isFileDone(q: Queue, file: string, size: number, mtimeMs: number): boolean {
  const row = q.stmt(`SELECT size, mtime_ms FROM ingested_files WHERE path = ?`).get(file) as
    | { size: number; mtime_ms: number }
    | undefined;
  return row !== undefined && row.size === size && Math.trunc(row.mtime_ms) === Math.trunc(mtimeMs);
}

export function markFileDone(
  q: Queue,
  file: string,
  size: number,
  mtimeMs: number,
  outcome: FileOutcome,
  detail: string | null = null,
  now: number = Date.now(),
): void {
  q.stmt(
    `INSERT INTO ingested_files (path, size, mtime_ms, outcome, detail, at) VALUES (?, ?, ?, ?, ?, ?) ` +
      `ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, ` +
      `outcome = excluded.outcome, detail = excluded.detail, at = excluded.at`,
  ).run(file, size, Math.trunc(mtimeMs), outcome, detail, now);
}

/**
 * Among the next `limit` files by path after `after`, those recorded before `before`
 * (`queue.retainDays` ago): the candidates the retention sweep looks at on disk. It walks
 * the primary key (an index by time would be one more page written by every ingest): call
 * it again with `next` (null once past the last file) to go on, from `''` to start over.
 */
export function ingestedFilesBefore(q: Queue, options: { before: number; after?: string; limit?: number }): { old: string[]; next: string | null } {
  const limit = options.limit ?? 1_000;
  const rows = q.stmt(`SELECT path, at FROM ingested_files WHERE path > ? ORDER BY path LIMIT ?`).all(options.after ?? '', limit) as { path: string; at: number }[];
  return { old: rows.filter((r) => r.at < options.before).map((r) => r.path), next: rows.length < limit ? null : rows[rows.length - 1].path };
}

/**
 * Forgets `files` (one transaction), each only if still recorded before `before`: a file
 * read again meanwhile keeps its new row. Returns how many rows went.
 */
export function forgetIngestedFiles(q: Queue, files: readonly string[], before: number): number {
  if (files.length === 0) return 0;
  const del = q.stmt(`DELETE FROM ingested_files WHERE path = ? AND at < ?`);
  let n = 0;
  q.write(() => {
    for (const file of files) n += del.run(file, before).changes;
  });
  return n;
}

/** A result file ingest could not take, with why (e.g. `ERR_NO_RECORDING_START ...`). */
export interface FileInError {
  path: string;
  detail: string | null;
  at: number;
}

/**
 * The result files recorded in error, for `status`: how many, and the latest `limit` of
 * them (over a partial index: the files read fine are never scanned).
 */
export function filesInError(q: Queue, limit = 3): { count: number; latest: FileInError[] } {
  const where = `WHERE outcome = 'error'`;
  const count = q.stmt(`SELECT COUNT(*) FROM ingested_files INDEXED BY ingested_files_errors ${where}`).pluck().get() as number;
  const latest = q
    .stmt(`SELECT path, detail, at FROM ingested_files INDEXED BY ingested_files_errors ${where} ORDER BY at DESC LIMIT ?`)
    .all(limit) as FileInError[];
  return { count, latest };
}
