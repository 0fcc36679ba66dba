import type { Stats } from 'node:fs';
import { lstat, opendir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { Queue } from '../queue/index.js';
import { isFileDone } from '../queue/ingested-files.js';
import { sourceHoldReasons } from '../queue/hold-counts.js';
import { INGEST_BATCH, WriteBatch } from '../queue/write-batch.js';
import { notTakenReason, undecodableNameReason } from '../system/regular-file.js';
import { createIngestContext } from './context.js';
import { classifyPath, type ResultClass } from './formats.js';
import type { IngestContext } from './context.js';
import type { IngestOutcome } from './ingest-recording.js';
import { Pairing } from './pairing.js';

/** The least time a backfilled file must be unchanged before an unfinished-looking end is taken as it is. */
const BACKFILL_SETTLE_MIN_MS = 5_000;

/**
 * `station-agent ingest PATH...`: backfills files or whole folders (an SD card
 * dump) through the same pairing, parsers and queue as the watcher. Idempotent:
 * files already finished with are skipped, and recordings already queued add
 * nothing. Folders are walked twice (count, then ingest), streaming, so the size of
 * the dump never matters for memory. Several files, with their `ingested_files` marks,
 * go into one commit (`WriteBatch`, bounded by rows and time).
 */
export interface IngestPathsOptions {
  config: Config;
  queue: Queue;
  paths: string[];
  dryRun?: boolean;
  /** Look again at files already recorded as done (queued items still dedupe). */
  force?: boolean;
  onProgress?: (done: number, total: number | null, file: string) => void;
  log?: Logger;
}

export interface IngestPathsResult {
  /** Recordings (result files) that queued detections. */
  recordings: number;
  /** Detections newly queued (or that would be, with dryRun). */
  detections: number;
  skipped: { file: string; reason: string }[];
  errors: { file: string; message: string }[];
}

const RESULT_NAMES =
  '*.BirdNET.selection.table.txt, *.BirdNET.results.csv, *.BirdNET.results.txt, *.BirdNET.results.kaleidoscope.csv, <audio>.csv, <audio>.json, *.detections.json';

/** Bounds what the summary keeps in memory for a huge dump; counts stay exact. */
const MAX_LISTED = 1_000;

export async function ingestPaths(options: IngestPathsOptions): Promise<IngestPathsResult> {
  const log = options.log ?? pino({ level: 'silent' });
  // An operator backfills finished output (an SD card, a copied folder): a file that has not
  // changed for input.stableMs (at least 5 s) is complete even when its last line has no line
  // end, as some analyzer versions write it; only the daemon waits out a writer's pauses.
  const settleMs = Math.max(options.config.input.stableMs, BACKFILL_SETTLE_MIN_MS);
  const ctx = await createIngestContext(options.config, options.queue, log, { dryRun: options.dryRun, settleMs });
  const writes = options.dryRun ? undefined : new WriteBatch(options.queue, INGEST_BATCH);
  ctx.writes = writes;
  try {
    const result = await ingestAll(options, ctx, log, writes);
    writes?.commit();
    return result;
  } catch (err) {
    writes?.rollback();
    throw err;
  }
}

async function ingestAll(options: IngestPathsOptions, ctx: IngestContext, log: Logger, writes: WriteBatch | undefined): Promise<IngestPathsResult> {
  const result: IngestPathsResult = { recordings: 0, detections: 0, skipped: [], errors: [] };
  const skip = (file: string, reason: string) => {
    if (result.skipped.length < MAX_LISTED) result.skipped.push({ file, reason });
  };

  let total = 0;
  for (const p of options.paths) {
    for await (const _found of resultFiles(p)) total++;
  }

  let done = 0;
  const pairing = new Pairing({
    ctx,
    mode: 'auto',
    jsonTimeoutMs: 0,
    audioWaitMs: 0,
    recheck: () => {},
    onOutcome: (file, outcome) => record(file, outcome),
  });
  const record = (file: string, outcome: IngestOutcome) => {
    done++;
    options.onProgress?.(done, total, file);
    if (outcome.status === 'queued') {
      result.recordings++;
      result.detections += outcome.newDetections;
      if (outcome.newDetections === 0) skip(file, alreadyQueued(options.queue, outcome.sourceKey));
      for (const problem of outcome.problems) log.warn(problem);
    } else if (outcome.status === 'no-detections') {
      // Rows that could not be read (an unresolvable common name, a garbage row) say more than "nothing above the threshold".
      const why = outcome.below === 0 && outcome.problems.length > 0
        ? `no readable detection: ${outcome.problems[0]}${outcome.problems.length > 1 ? ` (and ${outcome.problems.length - 1} more)` : ''}`
        : `no detection to post: none at or above input.minConfidence ${options.config.input.minConfidence} (${outcome.below} below) or the filters left none`;
      skip(file, why);
    } else if (outcome.status === 'error') {
      if (result.errors.length < MAX_LISTED) result.errors.push({ file, message: outcome.message });
    } else {
      skip(file, outcome.reason);
    }
  };

  for (const p of options.paths) {
    for await (const found of resultFiles(p)) {
      const { file } = found;
      if (found.error !== undefined) {
        done++;
        if (result.errors.length < MAX_LISTED) result.errors.push({ file, message: found.error });
        continue;
      }
      if (found.skip !== undefined) {
        done++;
        options.onProgress?.(done, total, file);
        log.warn({ file }, `skipped ${file}: ${found.skip}`);
        skip(file, found.skip);
        continue;
      }
      const { st } = found;
      if (!options.force && isFileDone(options.queue, file, st.size, st.mtimeMs)) {
        done++;
        options.onProgress?.(done, total, file);
        skip(file, 'already ingested');
        continue;
      }
      writes?.begin();
      // One at a time: keeps memory flat and the progress honest.
      await pairing.scheduleIngest(file, st, found.what);
      writes?.commitIfFull();
    }
  }
  return result;
}

type Found =
  | { file: string; st: Stats; what: ResultClass; error?: undefined; skip?: undefined }
  | { file: string; st?: undefined; error: string; skip?: undefined }
  | { file: string; st?: undefined; error?: undefined; skip: string };

/**
 * Result files (incl. analyzerpi JSON) under a file or folder, streamed. A path the
 * operator named is followed when it is a link (to the card's folder, say); links inside a
 * folder are not (a loop would list every file again and again), and neither are FIFOs
 * and other special files read (opening a FIFO blocks).
 */
async function* resultFiles(p: string, named = true, what: 'file' | 'folder' = 'file'): AsyncGenerator<Found> {
  let full = path.resolve(p);
  let st: Stats;
  try {
    st = named ? await stat(full) : await lstat(full);
    // A named link to a file is read as its target (files are opened without following links).
    if (named && st.isFile()) full = await realpath(full);
  } catch (err) {
    // A name that is not UTF-8 is there, but no path leads to it (issue 35: "no such file" misled).
    const gone = (err as NodeJS.ErrnoException).code === 'ENOENT';
    const undecodable = gone ? undecodableNameReason(full, what) : null;
    yield { file: full, error: undecodable ?? `${full}: ${gone ? 'no such file or folder' : String(err)}` };
    return;
  }
  const c = classifyPath(full);
  const readable = c.kind === 'result' || c.kind === 'analyzerpi-json';
  if (st.isFile()) {
    if (readable) yield { file: full, st, what: c };
    else if (named) yield { file: full, error: `${full}: not a result file the agent reads (${RESULT_NAMES}); audio is found through its result file` };
    return;
  }
  if (!st.isDirectory()) {
    const why = notTakenReason(st);
    if (why !== null && (named || readable || st.isSymbolicLink())) yield { file: full, skip: why };
    return;
  }
  const dir = await opendir(full).catch(() => null);
  if (!dir) {
    yield { file: full, error: `${full}: cannot read the folder` };
    return;
  }
  for await (const entry of dir) {
    if (entry.name.startsWith('.')) continue;
    yield* resultFiles(path.join(full, entry.name), false, entry.isDirectory() ? 'folder' : 'file');
  }
}

/**
 * Why a file queued nothing new. Its items are queued already; when they are held back
 * (a time that was implausible when it was read, the species gate), `--force` cannot help:
 * say so, and what ends the hold.
 */
function alreadyQueued(queue: Queue, sourceKey: string | null): string {
  const reasons = sourceKey === null ? [] : sourceHoldReasons(queue, sourceKey);
  if (reasons.length === 0) return 'already queued';
  return `already queued, held: ${reasons.join(', ')} (station-agent queue list --held shows them; queue release ends the hold)`;
}
