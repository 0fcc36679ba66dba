import { checkLimit, direction, limitSql, type ClaimOrder } from './claim.js';
import type { Queue } from './db.js';

/**
 * Encoding is not a state. A recording whose spool file is a WAV stays `pending` (or
 * `unknown`) while it is encoded, so `sending` keeps its one meaning: a request with
 * the item may be at the service. Two places encode:
 *
 * - the uploader, into memory, just before the claim: it reads the due WAV recordings
 *   ({@link wavRecordingsDue}), encodes them, and claims each by id and spool file
 *   (`claimEncoded` in claim-recordings.ts). Nothing is written for the encoding; audio
 *   that cannot be encoded fails the recording before any request (`markUnencodable`);
 * - the spool compaction, into a FLAC file in the spool, where that pays (a WAV too large
 *   to hold in memory, a backlog, a disk running low): it reads
 *   {@link compactionCandidates} and swaps the file with `replaceWithFlac`
 *   (replace-audio.ts), without a state change.
 */
export interface WavRecording {
  id: number;
  /** The WAV in the spool. */
  spoolPath: string;
  /** Its size in bytes (null when unknown). */
  filesize: number | null;
  /**
   * The WAV as it was queued (its size and modification time, migration 16), which the
   * encode checks it against, and the analyzer's file it came from; null: not checked (queued
   * before, or held by a reference, whose name carries its identity).
   */
  queued: { size: number; mtimeMs: number; source: string } | null;
  /** `unknown`: the service may have it already; the send reconciles first. */
  reconcile: boolean;
  createdAt: number;
}

interface WavRow {
  id: number;
  state: string;
  spool_path: string;
  source_path: string;
  filesize: number | null;
  audio_mtime_ms: number | null;
  created_at: number;
}

const toWav = (r: WavRow): WavRecording => ({
  id: r.id,
  spoolPath: r.spool_path,
  filesize: r.filesize,
  queued: r.filesize !== null && r.audio_mtime_ms !== null ? { size: r.filesize, mtimeMs: r.audio_mtime_ms, source: r.source_path } : null,
  reconcile: r.state === 'unknown',
  createdAt: r.created_at,
});

export interface WavDueOptions {
  now?: number;
  limit: number;
  order: ClaimOrder;
  /** Recordings being encoded or encoded already (in memory): not read again. */
  exclude?: readonly number[];
  /** Only WAVs of at most this many bytes (what may be held in memory). */
  maxBytes: number;
}

/**
 * Due WAV recordings (`unknown` first, then `pending`; not held; at most `maxBytes`) in
 * claim order: what the uploader encodes into memory next. A read: nothing changes.
 */
export function wavRecordingsDue(q: Queue, options: WavDueOptions): WavRecording[] {
  const limit = limitSql(options.limit);
  const dir = direction(options.order);
  const branch = (state: string) =>
    `SELECT id, state, spool_path, source_path, filesize, audio_mtime_ms, created_at, next_attempt_at FROM recordings WHERE waiting = 1 AND state = '${state}' AND audio_stage = 1 ` +
    `AND next_attempt_at <= @now AND hold_reason IS NULL AND filesize <= @max ` +
    `AND id NOT IN (SELECT value FROM json_each(@exclude)) ORDER BY next_attempt_at ${dir}, id ${dir} ${limit}`;
  const sql =
    `SELECT * FROM (SELECT * FROM (${branch('unknown')}) UNION ALL SELECT * FROM (${branch('pending')})) ` +
    `ORDER BY state = 'unknown' DESC, next_attempt_at ${dir}, id ${dir} ${limit}`;
  const rows = q.stmt(sql).all({
    now: options.now ?? Date.now(),
    max: options.maxBytes,
    exclude: JSON.stringify(options.exclude ?? []),
  }) as WavRow[];
  return rows.map(toWav);
}

export interface CompactionOptions {
  limit: number;
  /** Only recordings with a larger id (the caller's cursor through a long backlog). */
  afterId: number;
  /** WAVs larger than this are always candidates: they cannot be encoded into memory. */
  maxInMemoryBytes: number;
  /** WAVs queued at or before this time (epoch ms) are candidates too; null: none by age. */
  queuedBefore: number | null;
}

/**
 * WAV recordings waiting (`pending` or `unknown`) that the spool compaction may encode
 * into a FLAC file: too large for memory (or of unknown size), or queued before
 * `queuedBefore`. In id order after `afterId`. A read.
 */
export function compactionCandidates(q: Queue, options: CompactionOptions): WavRecording[] {
  checkLimit(options.limit);
  // One index range per waiting state (state, audio_stage): never the whole history by rowid.
  const branch = (state: string) =>
    `SELECT id, state, spool_path, source_path, filesize, audio_mtime_ms, created_at FROM recordings WHERE waiting = 1 AND state = '${state}' AND audio_stage = 1 ` +
    `AND +id > @after AND (filesize IS NULL OR filesize > @max OR created_at <= @before)`;
  const rows = q
    .stmt(`SELECT * FROM (${branch('pending')} UNION ALL ${branch('unknown')}) ORDER BY id LIMIT @limit`)
    .all({ after: options.afterId, max: options.maxInMemoryBytes, before: options.queuedBefore ?? -1, limit: options.limit }) as WavRow[];
  return rows.map(toWav);
}

/** The newest recording's id (0 in an empty queue): where the next compaction pass for new audio starts. A read (the rowid's end of its B-tree). */
export function newestRecordingId(q: Queue): number {
  return q.stmt('SELECT COALESCE(MAX(id), 0) FROM recordings').pluck().get() as number;
}
