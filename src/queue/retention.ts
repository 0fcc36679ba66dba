import type { Queue } from './db.js';
import { QueueError } from './errors.js';
import { readWaitingSpool } from './waiting-spool.js';

/**
 * The spool holds the audio of queued recordings. A file may go once its recording
 * is `uploaded` (or `dropped`) and `retentionMs` has passed since; never before,
 * and never for a `failed` recording (an operator may retry it and it needs the
 * audio). The caller deletes the file FIRST and then calls {@link clearSpoolPath}: a
 * crash in between leaves a path to a missing file, which the next pass deletes
 * again (ENOENT is fine), rather than a file no row points to.
 */
export interface SpoolFile {
  recordingId: number;
  spoolPath: string;
  filesize: number | null;
}

export interface RetentionOptions {
  /** How long after upload the audio stays in the spool (ms). */
  retentionMs: number;
  /** Epoch ms; default now. */
  now?: number;
  limit: number;
}

/**
 * The condition of the partial index `recordings_spool` besides `spool_path IS NOT NULL`
 * (migrations 8 and 10): the spool files of recordings that no longer wait, so it is
 * written once per recording (at its outcome). A query that reads the index states it
 * word for word.
 */
const SETTLED_SPOOL = `state IN ('uploaded', 'dropped', 'failed')`;
/** What retention may delete: never a `failed` recording's audio (it may be retried). */
export const RETIRED = `${SETTLED_SPOOL} AND state != 'failed'`;

/** Spool files that may be deleted, oldest first. */
export function spoolFilesToDelete(q: Queue, options: RetentionOptions): SpoolFile[] {
  if (!(options.retentionMs >= 0)) {
    throw new QueueError('ERR_QUEUE_INVALID', `retentionMs must be >= 0, got ${options.retentionMs}`);
  }
  const before = (options.now ?? Date.now()) - options.retentionMs;
  // INDEXED BY: the partial spool index holds only rows with a file; the state index would scan the history.
  const rows = q
    .stmt(
      `SELECT id, spool_path, filesize FROM recordings INDEXED BY recordings_spool ` +
        `WHERE spool_path IS NOT NULL AND ${RETIRED} AND updated_at <= ? ORDER BY updated_at, id LIMIT ?`,
    )
    .all(before, options.limit) as { id: number; spool_path: string; filesize: number | null }[];
  return rows.map((r) => ({ recordingId: r.id, spoolPath: r.spool_path, filesize: r.filesize }));
}

/**
 * Forgets the spool file of an uploaded (or dropped) recording after the caller
 * deleted it. Returns false (and changes nothing) for any other recording.
 */
export function clearSpoolPath(q: Queue, recordingId: number): boolean {
  // updated_at stays: it is the upload time retention counts from.
  return q.stmt(`UPDATE recordings SET spool_path = NULL WHERE id = ? AND ${RETIRED} AND spool_path IS NOT NULL`).run(recordingId).changes === 1;
}

export interface SpoolUsage {
  files: number;
  bytes: number;
}

/**
 * Files and bytes the queue holds in the spool: those of settled recordings (uploaded,
 * dropped, failed) from `recordings_spool` (covering; retention keeps them few), the
 * waiting ones (the backlog) from their kept total (waiting-spool.ts): neither reads the history.
 */
export function spoolUsage(q: Queue): SpoolUsage {
  return q.read(() => {
    const retired = q
      .stmt(`SELECT COUNT(*) AS files, COALESCE(SUM(filesize), 0) AS bytes FROM recordings INDEXED BY recordings_spool WHERE spool_path IS NOT NULL AND ${SETTLED_SPOOL}`)
      .get() as SpoolUsage;
    const waiting = readWaitingSpool(q);
    return { files: retired.files + waiting.files, bytes: retired.bytes + waiting.bytes };
  });
}
