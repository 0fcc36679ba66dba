import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import { findRecordingBySourceKey, markFileDone, type ChangedDetection, type NewDetection, type NewRecording, type RecordingItem } from '../queue/index.js';
import { addPolicyCounts, emptyCounts, mergeCounts, type PolicyCounts } from '../policy/counts.js';
import { enqueueWithPolicy } from '../policy/enqueue.js';
import type { Withheld } from '../policy/recording-policy.js';
import { NotRegularFileError } from '../system/regular-file.js';
import type { IngestContext } from './context.js';
import { IngestError, NoRecordingStartError, ResultFileError } from './errors.js';
import type { ResultClass } from './formats.js';
import { logWithheld, privacyVerdict, withholdQueued, type AudioFate } from './privacy.js';
import { Problems } from './problems.js';
import { openAudio, type AudioInspection } from './recording-audio.js';
import { identifyRecording, type RecordingIdentity } from './recording-identity.js';
import { detectionTimestamp, formatServiceTimestamp } from './recording-time.js';
import { openResultFile, SETTLE_MS, type OpenResult, type RowBatch } from './result-stream.js';
import { giveBackAudio, takeAudio, type TakenAudio } from './take-audio.js';
import type { ParsedDetection } from './types.js';

/**
 * Turns one analyzer result (and its audio, when there is one) into queue items, in this order:
 *
 * 1. open the result file (`result-stream.ts`): its first batch of rows, which for any real
 *    file is all of them;
 * 2. privacy (`privacy.ts`): a person heard in any row withholds the soundscape;
 * 3. the audio (`recording-audio.ts`): opened once, complete or recovered, or waited for;
 * 4. the recording's start and identity (`recording-identity.ts`);
 * 5. the rows the station's policies post (src/policy) that lie inside the audio are queued
 *    batch by batch; with the first, the audio is taken into the spool (`take-audio.ts`).
 *    The last batch's transaction also holds the file's policy counts and its
 *    `ingested_files` mark: a recording of up to one batch (every real one) costs one commit.
 *
 * Memory stays flat for a million-row table (batches of `BATCH_SIZE`); a crash mid-file
 * re-reads it and the dedupe keys skip what was queued. Used by the watcher and by
 * `station-agent ingest` alike, so a backfill behaves exactly like live ingestion.
 */
export interface IngestInput {
  /** The result file. */
  resultPath: string;
  /** The result file's classification, made once where it was found. */
  what: ResultClass;
  /** The analyzer's audio file, when known. */
  audioPath?: string;
  /** The audio already taken into the spool (analyzerpi: linked the moment it appeared). */
  spooledAudio?: string;
  /**
   * analyzerpi, where the spool is on another filesystem: the WAV held open since it appeared
   * (the analyzer may have deleted its name). Copied to `to` (in incoming/) only when the
   * recording keeps its audio and has a row to post: copying every WAV would write gigabytes
   * a day to the SD card. The caller closes the handle.
   */
  heldAudio?: { handle: FileHandle; to: string };
  /**
   * The result file as it was found: marked done (`ingested_files`) in the recording's last
   * transaction when the outcome is `queued` or `no-detections`. Other outcomes are the
   * caller's to mark.
   */
  found?: { size: number; mtimeMs: number };
  /**
   * The wait for an unfinished WAV is over: take what it holds (whole frames), or go
   * without it when it holds nothing readable.
   */
  audioAsItIs?: boolean;
}

export type IngestOutcome =
  | { status: 'queued'; recordingId: number | null; /** What the file's items are known by (their dedupe keys start with it). */ sourceKey: string | null; detections: number; newDetections: number; audio: 'spooled' | 'none' | 'existing'; problems: string[] }
  | { status: 'no-detections'; below: number; problems: string[] }
  /** Looked at again later: the audio or the result file itself is still being written. */
  | { status: 'not-ready'; reason: string; waitingFor: 'audio' | 'result' }
  | { status: 'error'; message: string; code: string };

export async function ingestRecording(ctx: IngestContext, input: IngestInput): Promise<IngestOutcome> {
  const nowMs = (ctx.now ?? Date.now)();
  let opened;
  try {
    opened = await openResultFile(input.resultPath, input.what, {
      labels: ctx.labels,
      format: ctx.format,
      maxBytes: ctx.maxResultFileBytes,
      now: nowMs,
      settleMs: ctx.settleMs,
    });
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

/**
 * A result file that could not be taken in, as its outcome: the error's code (an agent's
 * class, or the system's, such as `EIO`) and a message naming the file. An error without
 * a code is an {@link IngestError} (`ERR_INGEST`).
 */
export function errorOutcome(resultPath: string, err: unknown): IngestOutcome {
  if (err instanceof ResultFileError || err instanceof NotRegularFileError || err instanceof NoRecordingStartError || err instanceof IngestError) {
    return { status: 'error', message: err.message, code: err.code };
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return errorOutcome(resultPath, new IngestError(resultPath, err));
  return { status: 'error', message: `${resultPath}: ${errorMessage(err)}`, code };
}

async function ingestOpened(ctx: IngestContext, given: IngestInput, opened: OpenResult, nowMs: number): Promise<IngestOutcome> {
  const problems = new Problems(given.resultPath);
  const withheld = await privacyVerdict(ctx, opened);
  const { input, fate } = await prepareAudio(ctx, given, opened, withheld);
  // Withheld audio is still read for the recording's start (header, metadata), never spooled
  // or waited for, and its problems are nobody's concern.
  const audio = await inspectAudio(ctx, input, nowMs);
  try {
    if (audio?.kind === 'not-ready' && !withheld) {
      if (!input.audioAsItIs) return { status: 'not-ready', reason: audio.reason, waitingFor: 'audio' };
      problems.add(`${audio.reason}; still incomplete after waiting for it, detections go without a soundscape`);
    }
    if ((audio?.kind === 'invalid' || audio?.kind === 'missing') && !withheld) problems.add(audio.message);
    const valid = audio?.kind === 'wav' || audio?.kind === 'flac' ? audio : null;
    const identity = await identifyRecording(ctx, { resultPath: input.resultPath, what: input.what, audioPath: input.audioPath, audio: valid, opened, now: new Date(nowMs) });
    if (identity?.problem) problems.add(identity.problem);
    const existing = identity && !ctx.dryRun ? findRecordingBySourceKey(ctx.queue, identity.sourceKey) : undefined;
    if (withheld?.reason === 'human' && !ctx.dryRun) {
      logWithheld(ctx.log, input.resultPath, withheld, existing ? await withholdQueued(ctx, existing, withheld, input.resultPath) : fate);
    }
    return await queueRows(ctx, { input, opened, withheld, audio, identity, existing, problems, nowMs });
  } finally {
    if (audio?.kind === 'wav' || audio?.kind === 'flac') await audio.close();
  }
}

/**
 * Audio linked on sight is deleted before anything else happens to it when the recording is
 * withheld; a held WAV is copied into incoming/ only when it is wanted.
 */
async function prepareAudio(ctx: IngestContext, input: IngestInput, opened: OpenResult, withheld: Withheld | null): Promise<{ input: IngestInput; fate: AudioFate }> {
  if (withheld) {
    if (!input.spooledAudio) return { input, fate: 'not-taken' };
    if (!ctx.dryRun) await ctx.spool.remove(input.spooledAudio);
    return { input: { ...input, spooledAudio: undefined }, fate: 'deleted' };
  }
  const held = input.heldAudio;
  if (!held || input.spooledAudio || ctx.dryRun) return { input, fate: 'not-taken' };
  // The JSON of a held WAV is one batch: whether it has a row to post is known now.
  if (ctx.policy.decide(opened.first.detections).post.length === 0) return { input, fate: 'not-taken' };
  try {
    await ctx.spool.copyFromHandle(held.handle, held.to, input.audioPath ?? held.to);
    return { input: { ...input, spooledAudio: held.to }, fate: 'not-taken' };
  } catch (err) {
    ctx.log.warn(`could not copy ${input.audioPath ?? held.to} into the spool: ${errorMessage(err)}`);
    return { input, fate: 'not-taken' };
  }
}

/** The audio, opened once; a WAV never finalised is taken as it is once it has settled (or the wait is over). */
async function inspectAudio(ctx: IngestContext, input: IngestInput, nowMs: number): Promise<AudioInspection | null> {
  const audioPath = input.spooledAudio ?? input.audioPath;
  if (!audioPath) return null;
  const settleMs = ctx.settleMs ?? SETTLE_MS;
  return openAudio(audioPath, { asItIs: input.audioAsItIs ?? ((mtime) => nowMs - mtime.getTime() >= settleMs) });
}

interface Reading {
  input: IngestInput;
  opened: OpenResult;
  withheld: Withheld | null;
  audio: AudioInspection | null;
  identity: RecordingIdentity | undefined;
  existing: RecordingItem | undefined;
  problems: Problems;
  nowMs: number;
}

/** Step 5: the rows, batch by batch, each batch one transaction; the audio with the first. */
async function queueRows(ctx: IngestContext, r: Reading): Promise<IngestOutcome> {
  const { input, identity, existing, problems } = r;
  const valid = r.audio?.kind === 'wav' || r.audio?.kind === 'flac' ? r.audio : null;
  // Rows that start after the audio ends do not describe it. Without audio (and no queued
  // recording) the length is unknown and every row is kept: it goes without a soundscape.
  const durationSec = valid?.durationSec ?? r.existing?.durationS ?? undefined;
  let taken: TakenAudio | undefined; // undefined: no kept row so far
  let recording: NewRecording | null = null;
  let kept = 0;
  let below = 0;
  let inserted = 0;
  let recordingId: number | null = null;
  // What the policies kept back, counted once the whole file was read (a withheld soundscape once).
  const counts: PolicyCounts = emptyCounts();
  if (r.withheld?.reason === 'human') counts.humanSoundscapesWithheld++;

  try {
    for await (const batch of allBatches(r.opened)) {
      for (const e of batch.errors) problems.add(e.message);
      const decision = ctx.policy.decide(batch.detections);
      below += decision.below;
      mergeCounts(counts, { ...decision.counts, humanSoundscapesWithheld: 0 });
      const rows = decision.post.filter((d) => {
        if (durationSec === undefined || d.startSec < durationSec) return true;
        problems.add(`${input.resultPath} line ${d.line}: ${d.scientificName} at ${d.startSec}-${d.endSec} s starts after the end of the ${durationSec} s audio ${path.basename(valid?.path ?? existing?.sourcePath ?? '')}; row skipped`);
        return false;
      });
      if (rows.length > 0 && !identity) return errorOutcome(input.resultPath, new NoRecordingStartError(input.resultPath));
      kept += rows.length;
      if (ctx.dryRun || (rows.length === 0 && !batch.last)) continue;
      const first = rows.length > 0 && taken === undefined;
      if (first && identity) {
        // The first kept row: now the audio is worth taking into the spool.
        taken = r.withheld
          ? { spoolPath: null, audio: null, mtimeMs: null, state: existing ? 'existing' : 'none' }
          : await takeAudio(ctx, { existing, inspected: r.audio, spooledAudio: input.spooledAudio, sourceKey: identity.sourceKey, problems, analyzerKeepsAudio: input.what.kind === 'result' });
        recording = r.withheld ? null : newRecording(ctx, input, identity, taken, existing);
      }
      const detections = identity ? rows.map((d) => newDetection(ctx, identity, d)) : [];
      let result;
      try {
        result = ctx.queue.write(() => {
          const queuedAt = ctx.queueNow ? ctx.queueNow() : r.nowMs;
          const queued = rows.length > 0 ? enqueueWithPolicy(ctx.queue, ctx.policy, { recording, detections }, queuedAt) : null;
          if (batch.last) {
            addPolicyCounts(ctx.queue, counts, { now: queuedAt });
            if (input.found) markFileDone(ctx.queue, input.resultPath, input.found.size, input.found.mtimeMs, kept > 0 ? 'queued' : 'no-detections', null, queuedAt);
          }
          return queued;
        });
      } catch (err) {
        // Nothing of this batch was queued: the audio taken with it goes back.
        if (first && taken?.spoolPath && taken.state === 'spooled') await giveBackAudio(taken.spoolPath, input.spooledAudio);
        throw err;
      }
      ctx.writes?.commitIfFull();
      if (result) {
        recordingId = result.recordingId;
        inserted += result.detectionsInserted;
        for (const c of result.changed) problems.add(describeChange(input.resultPath, rows, c));
      }
    }
  } finally {
    if (taken?.audio && taken.audio !== r.audio) await taken.audio.close();
  }

  if (kept === 0) {
    // Linked on sight, and nothing to post: not wanted.
    if (input.spooledAudio && !ctx.dryRun) await ctx.spool.remove(input.spooledAudio);
    return { status: 'no-detections', below, problems: problems.list() };
  }
  const sourceKey = identity?.sourceKey ?? null;
  if (ctx.dryRun) return { status: 'queued', recordingId: null, sourceKey, detections: kept, newDetections: kept, audio: valid ? 'spooled' : 'none', problems: problems.list() };
  return { status: 'queued', recordingId, sourceKey, detections: kept, newDetections: inserted, audio: taken?.state ?? 'none', problems: problems.list() };
}

/** The first batch (read when the file was opened), then the rest. */
async function* allBatches(opened: OpenResult): AsyncGenerator<RowBatch> {
  yield opened.first;
  yield* opened.rest();
}

/** The recording to queue with the first batch: with its audio, or queued before; null without either. */
function newRecording(ctx: IngestContext, input: IngestInput, identity: RecordingIdentity, taken: TakenAudio, existing: RecordingItem | undefined): NewRecording | null {
  const audio = taken.audio;
  if (!audio && !existing) return null;
  return {
    sourceKey: identity.sourceKey,
    sourcePath: input.spooledAudio ?? input.audioPath ?? input.resultPath,
    spoolPath: taken.spoolPath,
    audioFormat: taken.spoolPath ? (audio?.kind ?? null) : null,
    timestamp: formatServiceTimestamp(identity.start.start, ctx.zone),
    timeSource: identity.start.source,
    durationS: audio?.durationSec ?? null,
    sampleRate: audio?.sampleRate ?? null,
    filesize: taken.spoolPath && audio ? audio.bytes : null,
    audioMtimeMs: taken.spoolPath && audio ? taken.mtimeMs : null,
    holdReason: identity.holdReason,
  };
}

function newDetection(ctx: IngestContext, identity: RecordingIdentity, d: ParsedDetection): NewDetection {
  return {
    dedupeKey: `${identity.sourceKey}|${d.startSec}|${d.scientificName}`,
    timestamp: detectionTimestamp(identity.start.start, d.startSec, ctx.zone),
    startS: d.startSec,
    endS: d.endSec,
    scientificName: d.scientificName,
    commonName: d.commonName,
    confidence: d.confidence,
    lat: ctx.lat,
    lon: ctx.lon,
    holdReason: identity.holdReason,
  };
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
