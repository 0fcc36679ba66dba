import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import type { ChangedDetection, NewDetection, NewRecording, Queue } from '../queue/index.js';
import type { WriteBatch } from '../queue/write-batch.js';
import { findRecordingBySourceKey } from '../queue/find-recording.js';
import { emptyCounts, mergeCounts, type PolicyCounts } from '../policy/counts.js';
import { countCounts, enqueueWithPolicy, logWithheld } from '../policy/enqueue.js';
import type { RecordingDecision, StationPolicy, Withheld } from '../policy/recording-policy.js';
import { NotRegularFileError } from '../system/regular-file.js';
import { ResultFileError } from './errors.js';
import { classifyPath } from './formats.js';
import type { Labels } from './labels.js';
import { contentKey, inspectAudio, leftInSpool, spoolAudio, type ValidAudio } from './recording-audio.js';
import { detectionTimestamp, formatServiceTimestamp, resolveRecordingStart } from './recording-time.js';
import { openResultFile, type OpenedResult } from './result-stream.js';
import { DiskFullError, type Spool } from './spool.js';
import { IMPLAUSIBLE_TIME_HOLD } from './time-holds.js';
import type { ParsedDetection, ResultFormat } from './types.js';

/**
 * Turns one analyzer result (and its audio, when there is one) into queue items: read
 * the result as a stream, resolve the recording's start (`resolveRecordingStart`, the one
 * place that decides it), keep the detections the station's policies post (src/policy:
 * thresholds, non-bird classes, include/exclude, the species gate) that lie inside the
 * audio, take the audio into the spool unless the policies withhold it (privacy), and
 * enqueue in batches of `BATCH_SIZE`
 * detections, one transaction each (memory stays flat for a million-row table; a crash
 * mid-file re-reads it and the dedupe keys skip what was queued). Used by the watcher and
 * by `station-agent ingest` alike, so a backfill behaves exactly like live ingestion.
 */
export interface IngestContext {
  queue: Queue;
  spool: Spool;
  labels: Labels | undefined;
  /** IANA zone of the station: naive local file names are read in it. */
  zone: string;
  /** Which rows are posted and whether the audio may be kept (input.minConfidence, privacy, filters). */
  policy: StationPolicy;
  format: ResultFormat | 'auto';
  lat: number | null;
  lon: number | null;
  /** `disk.minFreeMb`: below it, audio is not spooled (detections still queue; system/disk.ts says "low"). */
  minFreeMb: number;
  /** Larger result files are refused (`input.maxResultFileMb`). */
  maxResultFileBytes: number;
  /**
   * How long a result file whose end looks unfinished (no final line end, JSON that does
   * not parse) must stay unchanged before it is taken as it is. The daemon waits
   * `SETTLE_MS` (the analyzer may still be writing); `ingest`, run by an operator on
   * finished output, much less.
   */
  settleMs?: number;
  log: Logger;
  now?: () => number;
  /** Report what would be queued without writing anything. */
  dryRun?: boolean;
  /**
   * `station-agent ingest`: the open batch of writes (several files per commit); a long
   * file commits it when it reaches its bounds. The daemon commits each file on its own.
   */
  writes?: WriteBatch;
}

export interface IngestInput {
  /** The result file. */
  resultPath: string;
  /** The analyzer's audio file, when known. */
  audioPath?: string;
  /** The audio already taken into the spool (analyzerpi: linked the moment it appeared). */
  spooledAudio?: string;
}

export type IngestOutcome =
  | { status: 'queued'; recordingId: number | null; /** What the file's items are known by (their dedupe keys start with it). */ sourceKey: string | null; detections: number; newDetections: number; audio: 'spooled' | 'none' | 'existing'; problems: string[] }
  | { status: 'no-detections'; below: number; problems: string[] }
  /** Looked at again later: the audio or the result file itself is still being written. */
  | { status: 'not-ready'; reason: string; waitingFor: 'audio' | 'result' }
  | { status: 'error'; message: string; code: string };

export async function ingestRecording(ctx: IngestContext, input: IngestInput): Promise<IngestOutcome> {
  const nowMs = (ctx.now ?? Date.now)();
  let opened: OpenedResult;
  try {
    opened = await openResultFile(input.resultPath, { labels: ctx.labels, format: ctx.format, maxBytes: ctx.maxResultFileBytes, now: nowMs, settleMs: ctx.settleMs });
  } catch (err) {
    return errorOutcome(input.resultPath, err);
  }
  if (opened.kind === 'not-ready') return { status: 'not-ready', reason: opened.reason, waitingFor: 'result' };
  try {
    return await ingestOpened(ctx, input, opened, nowMs);
  } catch (err) {
    if (err instanceof ResultFileError || err instanceof NotRegularFileError) return errorOutcome(input.resultPath, err);
    throw err;
  } finally {
    await opened.close();
  }
}

function errorOutcome(resultPath: string, err: unknown): IngestOutcome {
  if (err instanceof ResultFileError || err instanceof NotRegularFileError) return { status: 'error', message: err.message, code: err.code };
  const code = (err as NodeJS.ErrnoException).code ?? 'ERR_READ';
  return { status: 'error', message: `${resultPath}: ${errorMessage(err)}`, code };
}

async function ingestOpened(ctx: IngestContext, given: IngestInput, opened: Extract<OpenedResult, { kind: 'open' }>, nowMs: number): Promise<IngestOutcome> {
  let input = given;
  const problems = new Problems(input.resultPath);
  // Privacy looks at every row the analyzer wrote, before any threshold and before any
  // audio is taken: a person heard in the last row of a long table still withholds it.
  const withheld = await withheldAudio(ctx, input, opened);
  if (withheld && !ctx.dryRun) logWithheld(ctx.log, input.resultPath, withheld, Boolean(input.spooledAudio));
  if (withheld && input.spooledAudio) {
    // Audio the policies withhold is deleted before anything else happens to it.
    if (!ctx.dryRun) await rm(input.spooledAudio, { force: true });
    input = { resultPath: input.resultPath, audioPath: input.audioPath };
  }
  const audioKept = !withheld;
  const audioPath = input.spooledAudio ?? input.audioPath;
  // Withheld audio is still read for the recording's start (header, metadata), never spooled
  // or waited for, and its problems are nobody's concern.
  const audio = audioPath ? await inspectAudio(audioPath) : null;
  if (audio?.kind === 'not-ready' && audioKept) return { status: 'not-ready', reason: audio.reason, waitingFor: 'audio' };
  if ((audio?.kind === 'invalid' || audio?.kind === 'missing') && audioKept) problems.add(audio.message);
  let audioOk: ValidAudio | null = audio?.kind === 'wav' || audio?.kind === 'flac' ? audio : null;

  const start = resolveRecordingStart({
    zone: ctx.zone,
    // The audio's name, the name the result gives it, then the result's own base name (pairing is by base name).
    fileName: [input.audioPath, opened.audioFileName, `${resultBaseName(input.resultPath)}.wav`].filter((n): n is string => Boolean(n)),
    sidecarStart: opened.recordingStart,
    metadata: audioOk?.kind === 'wav' ? { comment: audioOk.info.comment, guano: audioOk.info.guano } : undefined,
    mtime: audioOk && audioPath ? await stat(audioPath).then((s) => s.mtime, () => undefined) : undefined,
    durationSec: audioOk?.durationSec,
    now: new Date(nowMs),
  });
  const baseName = path.basename(input.audioPath ?? opened.audioFileName ?? baseOf(input.resultPath));
  // A start taken from the modification time changes with every copy of the file (an SD
  // card dump copied twice): such a recording is known by its audio's content instead
  // (the mtime source is only used with audio).
  const sourceKey = !start
    ? null
    : start.source !== 'mtime' || !audioPath
      ? `${baseName}|${start.start.toISOString()}`
      : `${baseName}|audio:${await contentKey(audioPath)}`;
  const holdReason = start?.implausible ? IMPLAUSIBLE_TIME_HOLD : null;
  if (start?.implausible) {
    problems.add(
      `${input.audioPath ?? input.resultPath}: ${start.implausibleReason} (from ${start.source}); held until the clock makes it plausible, or an operator releases it (queue release)`,
    );
  }

  const existing = sourceKey && !ctx.dryRun ? findRecordingBySourceKey(ctx.queue, sourceKey) : undefined;
  // Rows that start after the audio ends do not describe it. Without audio (and no queued
  // recording) the length is unknown and every row is kept: it goes without a soundscape.
  const durationSec = audioOk?.durationSec ?? existing?.durationS ?? undefined;
  let recording: NewRecording | null | undefined; // undefined: not prepared yet (no kept row so far)
  let spoolPath: string | null = existing?.spoolPath ?? null;
  let audioState: 'spooled' | 'none' | 'existing' = existing ? 'existing' : 'none';
  let kept = 0;
  let below = 0;
  let inserted = 0;
  let recordingId: number | null = null;
  // What the policies kept back, counted once the whole file was read (a withheld soundscape once).
  const counts: PolicyCounts = emptyCounts();
  if (withheld?.reason === 'human') counts.humanSoundscapesWithheld++;

  for await (const batch of opened.batches) {
    for (const e of batch.errors) problems.add(e.message);
    const decision = ctx.policy.decide(batch.detections);
    below += decision.below;
    mergeCounts(counts, { ...decision.counts, humanSoundscapesWithheld: 0 });
    const rows: ParsedDetection[] = [];
    for (const d of decision.post) {
      if (durationSec !== undefined && d.startSec >= durationSec) {
        problems.add(`${input.resultPath} line ${d.line}: ${d.scientificName} at ${d.startSec}-${d.endSec} s starts after the end of the ${durationSec} s audio ${path.basename(audioPath ?? existing?.sourcePath ?? '')}; row skipped`);
      } else {
        rows.push(d);
      }
    }
    if (rows.length === 0) continue;
    if (!start || !sourceKey) {
      return {
        status: 'error',
        code: 'ERR_NO_RECORDING_START',
        message:
          `${input.resultPath}: no recording start: neither the file nor its name (nor an audio file's name or metadata) gives the date and time, ` +
          `and no audio is beside it; not queued (a detection is never stamped with the time of ingest). ` +
          `Put the audio beside it, name it like <prefix>_YYYYMMDD_HHMMSS, or write a sidecar (docs/SIDECAR.md), then run station-agent ingest --force on it`,
      };
    }
    kept += rows.length;
    if (ctx.dryRun) continue;
    const detections: NewDetection[] = rows.map((d) => ({
      dedupeKey: `${sourceKey}|${d.startSec}|${d.scientificName}`,
      timestamp: detectionTimestamp(start.start, d.startSec, ctx.zone),
      startS: d.startSec,
      endS: d.endSec,
      scientificName: d.scientificName,
      commonName: d.commonName,
      confidence: d.confidence,
      lat: ctx.lat,
      lon: ctx.lon,
      holdReason,
    }));

    const first = recording === undefined;
    if (first) {
      // The first kept row: now the audio is worth taking into the spool.
      let audioGone = false;
      if (!existing && !audioOk && audio?.kind === 'missing' && audioKept) {
        // A crash after the audio was moved into the spool but before its row was committed
        // left it under its spool name: take it from there instead of losing it.
        const left = await leftInSpool(ctx, sourceKey);
        if (left) {
          spoolPath = left.path;
          audioOk = left.audio;
          problems.remove(audio.message);
          audioState = 'spooled';
        }
      }
      if (!existing && audioOk && audioPath && !spoolPath && audioKept) {
        // Copying audio into the spool can take seconds on an SD card: `ingest` commits its
        // open batch first, so a daemon beside it never waits that long for the write lock.
        ctx.writes?.commit();
        try {
          spoolPath = await spoolAudio(ctx, audioPath, Boolean(input.spooledAudio), sourceKey, audioOk.kind);
          audioState = spoolPath ? 'spooled' : 'none';
          if (!spoolPath) problems.add(`${audioPath}: not spooled, free disk space is below disk.minFreeMb; detections go without a soundscape`);
        } catch (err) {
          if (err instanceof DiskFullError) {
            problems.add(`${err.message}; detections go without a soundscape`);
          } else if (err instanceof NotRegularFileError) {
            // Swapped for a FIFO or a link after its header was read.
            problems.add(`${err.message}; detections go without a soundscape`);
            audioGone = true;
          } else if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !(await stat(audioPath).catch(() => null))) {
            // Deleted between reading its header and taking it (the analyzer cleaning up):
            // as if it had never been there, rather than losing the detections with the file.
            problems.add(`${audioPath}: audio deleted before it could be spooled; detections go without a soundscape`);
            audioGone = true;
          } else {
            throw err;
          }
        }
      } else if (existing && input.spooledAudio) {
        await rm(input.spooledAudio, { force: true });
      }
      recording = !audioKept ? null : (audioOk && !audioGone) || existing
        ? {
            sourceKey,
            sourcePath: audioPath ?? input.resultPath,
            spoolPath,
            audioFormat: spoolPath ? audioOk?.kind ?? null : null,
            timestamp: formatServiceTimestamp(start.start, ctx.zone),
            timeSource: start.source,
            durationS: audioOk?.durationSec ?? null,
            sampleRate: audioOk?.sampleRate ?? null,
            filesize: spoolPath && audioOk ? audioOk.bytes : null,
            holdReason,
          }
        : null;
    }
    let result;
    try {
      result = enqueueWithPolicy(ctx.queue, ctx.policy, { recording: recording ?? null, detections }, nowMs);
    } catch (err) {
      // Nothing of this batch was queued. If it was the first, audio that came from incoming/
      // goes back there (the analyzer has deleted its own copy: this is the only one); a copy
      // of a file that still exists goes.
      if (first && spoolPath && !existing) {
        if (input.spooledAudio) await rename(spoolPath, input.spooledAudio).catch(() => undefined);
        else await rm(spoolPath, { force: true });
      }
      throw err;
    }
    ctx.writes?.commitIfFull();
    recordingId = result.recordingId;
    inserted += result.detectionsInserted;
    for (const c of result.changed) problems.add(describeChange(input.resultPath, rows, c));
  }

  if (!ctx.dryRun) countCounts(ctx.queue, counts);
  if (kept === 0) {
    if (input.spooledAudio && !ctx.dryRun) await rm(input.spooledAudio, { force: true });
    return { status: 'no-detections', below, problems: problems.list() };
  }
  if (ctx.dryRun) {
    return { status: 'queued', recordingId: null, sourceKey, detections: kept, newDetections: kept, audio: audioOk ? 'spooled' : 'none', problems: problems.list() };
  }
  return { status: 'queued', recordingId, sourceKey, detections: kept, newDetections: inserted, audio: audioState, problems: problems.list() };
}

/**
 * Whether the recording's audio must not be spooled or uploaded: `privacy.audio: never`, or a
 * person heard in any row of the file. Reads the file a second time (as a stream) only where
 * there is audio to withhold; the rows themselves are decided batch by batch.
 */
async function withheldAudio(ctx: IngestContext, input: IngestInput, opened: Extract<OpenedResult, { kind: 'open' }>): Promise<Withheld | null> {
  if (!ctx.policy.keepsAudio) return { reason: 'audio-never' };
  if (!input.spooledAudio && !input.audioPath) return null;
  const again = await openResultFile(input.resultPath, { labels: ctx.labels, format: opened.format, maxBytes: ctx.maxResultFileBytes, now: Number.POSITIVE_INFINITY });
  if (again.kind !== 'open') return null;
  try {
    let found: Withheld | null = null;
    for await (const batch of again.batches) {
      const w: RecordingDecision['withheld'] = ctx.policy.decide(batch.detections).withheld;
      if (w?.reason === 'human' && (found?.reason !== 'human' || w.confidence > found.confidence)) found = w;
    }
    return found;
  } finally {
    await again.close();
  }
}

/** A queued detection whose row changed in the file after it was read (rewritten, or read while being written). */
function describeChange(resultPath: string, rows: readonly ParsedDetection[], c: ChangedDetection): string {
  const row = rows.find((d) => c.dedupeKey.endsWith(`|${d.startSec}|${d.scientificName}`));
  const diff = (['confidence', 'endS', 'commonName'] as const)
    .filter((k) => c.before[k] !== c.after[k])
    .map((k) => `${k} ${JSON.stringify(c.before[k])} -> ${JSON.stringify(c.after[k])}`)
    .join(', ');
  const what = c.updated ? 'the queued item (never sent) now has the new values' : `it was already ${c.state} with the old values, which stand at the service`;
  return `${resultPath}${row ? ` line ${row.line}` : ''}: detection d${c.id} changed after it was queued (${diff}); ${what}`;
}

/** Problems of one file, bounded: a million bad rows must not become a million log lines in memory. */
class Problems {
  private readonly items: string[] = [];
  private more = 0;

  constructor(private readonly file: string) {}

  add(message: string): void {
    if (this.items.length < MAX_PROBLEMS) this.items.push(message);
    else this.more++;
  }

  remove(message: string): void {
    const at = this.items.indexOf(message);
    if (at >= 0) this.items.splice(at, 1);
  }

  list(): string[] {
    return this.more === 0 ? [...this.items] : [...this.items, `${this.file}: ${this.more} more problems not listed`];
  }
}

const MAX_PROBLEMS = 100;

function resultBaseName(resultPath: string): string {
  const c = classifyPath(resultPath);
  return c.kind === 'ignored' ? baseOf(resultPath) : c.baseName;
}

function baseOf(resultPath: string): string {
  return path.basename(resultPath).replace(/\.(BirdNET\..*|detections\.json|json|csv)$/i, '');
}
