import type { Queue } from './db.js';

/**
 * The analyzer's files the agent has finished with, by path, size and modification
 * time. The watcher ignores them (so it keeps no state for a year of output), and
 * a rescan or a backfill of the same folder skips them. A file that changes (new
 * size or mtime) is looked at again. Rows of files that are gone are pruned.
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
 * Forgets the files, among the next `limit` by path after `after`, that no longer exist
 * (`exists` deciding). It walks the primary key (an index by time would be one more page
 * written by every ingest): call it again with `next` (null once past the last file) to
 * go on, from `''` to start over.
 */
export function pruneIngestedFiles(
  q: Queue,
  exists: (file: string) => boolean,
  options: { after?: string; limit?: number } = {},
): { pruned: number; next: string | null } {
  const limit = options.limit ?? 1_000;
  const rows = q.stmt(`SELECT path FROM ingested_files WHERE path > ? ORDER BY path LIMIT ?`).all(options.after ?? '', limit) as { path: string }[];
  const gone = rows.filter((r) => !exists(r.path)).map((r) => r.path);
  if (gone.length > 0) {
    const del = q.stmt(`DELETE FROM ingested_files WHERE path = ?`);
    q.write(() => {
      for (const file of gone) del.run(file);
    });
  }
  return { pruned: gone.length, next: rows.length < limit ? null : rows[rows.length - 1].path };
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
