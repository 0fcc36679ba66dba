import { createHash } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { AudioFileError, STILL_BEING_WRITTEN } from '../audio/errors.js';
import { readFlacInfo } from '../audio/flac-info.js';
import { readWavInfo, type WavInfo } from '../audio/wav.js';
import { errorMessage } from '../errors.js';
import { enqueueRecording, type NewDetection, type NewRecording, type Queue } from '../queue/index.js';
import { findRecordingBySourceKey } from '../queue/find-recording.js';
import { ResultFileError } from './errors.js';
import { parseResultFile } from './formats.js';
import type { Labels } from './labels.js';
import { formatServiceTimestamp, isPlausibleStart, recordingStartFromMetadata, recordingStartFromName } from './recording-time.js';
import { DiskFullError, type Spool } from './spool.js';
import { IMPLAUSIBLE_TIME_HOLD } from './time-holds.js';
import type { ParsedResultFile, ResultFormat } from './types.js';

/**
 * Turns one analyzer result (and its audio, when there is one) into queue items:
 * parse, resolve the recording's start, keep the detections at or above
 * `minConfidence`, take the audio into the spool, and enqueue everything in one
 * transaction. Used by the watcher and by `station-agent ingest` alike, so a
 * backfill behaves exactly like live ingestion.
 */
export interface IngestContext {
  queue: Queue;
  spool: Spool;
  labels: Labels | undefined;
  /** IANA zone of the station: naive local file names are read in it. */
  zone: string;
  minConfidence: number;
  format: ResultFormat | 'auto';
  lat: number | null;
  lon: number | null;
  /** Below this many free bytes, audio is not spooled (detections still queue). */
  minFreeBytes: number;
  log: Logger;
  now?: () => number;
  /** Report what would be queued without writing anything. */
  dryRun?: boolean;
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
  | { status: 'queued'; recordingId: number | null; detections: number; newDetections: number; audio: 'spooled' | 'none' | 'existing'; problems: string[] }
  | { status: 'no-detections'; below: number; problems: string[] }
  | { status: 'not-ready'; reason: string }
  | { status: 'error'; message: string; code: string };

export async function ingestRecording(ctx: IngestContext, input: IngestInput): Promise<IngestOutcome> {
  let parsed: ParsedResultFile;
  try {
    const text = await readFile(input.resultPath, 'utf8');
    parsed = parseResultFile(input.resultPath, text, { labels: ctx.labels, format: ctx.format });
  } catch (err) {
    if (err instanceof ResultFileError) return { status: 'error', message: err.message, code: err.code };
    const code = (err as NodeJS.ErrnoException).code ?? 'ERR_READ';
    return { status: 'error', message: `${input.resultPath}: ${errorMessage(err)}`, code };
  }
  const problems = parsed.errors.map((e) => e.message);
  const kept = parsed.detections.filter((d) => d.confidence >= ctx.minConfidence);
  if (kept.length === 0) {
    if (input.spooledAudio && !ctx.dryRun) await rm(input.spooledAudio, { force: true });
    return { status: 'no-detections', below: parsed.detections.length, problems };
  }

  const audioPath = input.spooledAudio ?? input.audioPath;
  const audio = audioPath ? await inspectAudio(audioPath) : null;
  if (audio?.kind === 'not-ready') return { status: 'not-ready', reason: audio.reason };
  if (audio?.kind === 'invalid' || audio?.kind === 'missing') problems.push(audio.message);
  let audioOk = audio?.kind === 'wav' || audio?.kind === 'flac' ? audio : null;

  const nameForTime = input.audioPath ?? parsed.audioFileName ?? input.resultPath;
  const start = await recordingStart(parsed, nameForTime, audioOk, audioPath, ctx.zone);
  const startMs = start.date.getTime();
  const baseName = path.basename(input.audioPath ?? parsed.audioFileName ?? baseOf(input.resultPath));
  // A start taken from the modification time changes with every copy of the file (an SD
  // card dump copied twice): such a recording is known by its audio's content instead, or,
  // without audio, by where its results lie (the analyzer's several result formats of one
  // recording sit side by side under one base name).
  const sourceKey =
    start.source !== 'mtime'
      ? `${baseName}|${new Date(startMs).toISOString()}`
      : audioOk && audioPath
        ? `${baseName}|audio:${await contentKey(audioPath)}`
        : `${baseName}|dir:${path.dirname(path.resolve(input.resultPath))}`;
  const nowMs = (ctx.now ?? Date.now)();
  const holdReason = isPlausibleStart(start.date, new Date(nowMs)) ? null : IMPLAUSIBLE_TIME_HOLD;
  if (holdReason) {
    problems.push(
      `${nameForTime}: recording start ${start.date.toISOString()} (from ${start.source}) is implausible; held until the clock makes it plausible, or an operator releases it (queue release)`,
    );
  }

  const detections: NewDetection[] = kept.map((d) => ({
    dedupeKey: `${sourceKey}|${d.startSec}|${d.scientificName}`,
    timestamp: formatServiceTimestamp(new Date(startMs + Math.round(d.startSec * 1000)), ctx.zone),
    startS: d.startSec,
    endS: d.endSec,
    scientificName: d.scientificName,
    commonName: d.commonName,
    confidence: d.confidence,
    lat: ctx.lat,
    lon: ctx.lon,
    holdReason,
  }));
  if (ctx.dryRun) {
    return { status: 'queued', recordingId: null, detections: detections.length, newDetections: detections.length, audio: audioOk ? 'spooled' : 'none', problems };
  }

  const existing = findRecordingBySourceKey(ctx.queue, sourceKey);
  let spoolPath: string | null = existing?.spoolPath ?? null;
  let audioState: 'spooled' | 'none' | 'existing' = existing ? 'existing' : 'none';
  if (!existing && !audioOk && audio?.kind === 'missing') {
    // A crash after the audio was moved into the spool but before its row was committed
    // left it under its spool name: take it from there instead of losing it.
    const left = await leftInSpool(ctx, sourceKey);
    if (left) {
      spoolPath = left.path;
      audioOk = left.audio;
      problems.splice(problems.indexOf(audio.message), 1);
      audioState = 'spooled';
    }
  }
  let audioGone = false;
  if (!existing && audioOk && audioPath && !spoolPath) {
    try {
      spoolPath = await spoolAudio(ctx, audioPath, Boolean(input.spooledAudio), sourceKey, audioOk.kind);
      audioState = spoolPath ? 'spooled' : 'none';
      if (!spoolPath) problems.push(`${audioPath}: not spooled, free disk space is below disk.minFreeMb; detections go without a soundscape`);
    } catch (err) {
      if (err instanceof DiskFullError) {
        problems.push(`${err.message}; detections go without a soundscape`);
      } else if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !(await stat(audioPath).catch(() => null))) {
        // Deleted between reading its header and taking it (the analyzer cleaning up):
        // as if it had never been there, rather than losing the detections with the file.
        problems.push(`${audioPath}: audio deleted before it could be spooled; detections go without a soundscape`);
        audioGone = true;
      } else {
        throw err;
      }
    }
  } else if (existing && input.spooledAudio) {
    await rm(input.spooledAudio, { force: true });
  }

  const recording: NewRecording | null = (audioOk && !audioGone) || existing
    ? {
        sourceKey,
        sourcePath: audioPath ?? input.resultPath,
        spoolPath,
        audioFormat: spoolPath ? audioOk?.kind ?? null : null,
        timestamp: formatServiceTimestamp(start.date, ctx.zone),
        timeSource: start.source,
        durationS: audioOk?.durationSec ?? null,
        sampleRate: audioOk?.sampleRate ?? null,
        filesize: spoolPath && audioOk ? audioOk.bytes : null,
        holdReason,
      }
    : null;
  try {
    const result = enqueueRecording(ctx.queue, { recording, detections });
    return {
      status: 'queued',
      recordingId: result.recordingId,
      detections: detections.length,
      newDetections: result.detectionsInserted,
      audio: audioState,
      problems,
    };
  } catch (err) {
    // Nothing was queued. Audio that came from incoming/ goes back there (the analyzer has
    // deleted its own copy: this is the only one); a copy of a file that still exists goes.
    if (spoolPath && !existing) {
      if (input.spooledAudio) await rename(spoolPath, input.spooledAudio).catch(() => undefined);
      else await rm(spoolPath, { force: true });
    }
    throw err;
  }
}

type AudioInspection =
  | { kind: 'wav'; durationSec: number; sampleRate: number; bytes: number; info: WavInfo }
  | { kind: 'flac'; durationSec: number; sampleRate: number; bytes: number }
  | { kind: 'not-ready'; reason: string }
  | { kind: 'invalid'; message: string }
  | { kind: 'missing'; message: string };

async function inspectAudio(file: string): Promise<AudioInspection> {
  try {
    if (/\.flac$/i.test(file)) {
      const info = await readFlacInfo(file);
      return { kind: 'flac', durationSec: info.durationSec, sampleRate: info.sampleRate, bytes: info.bytes };
    }
    const info = await readWavInfo(file);
    if (!info.complete) return { kind: 'not-ready', reason: `${file}: still being written` };
    return { kind: 'wav', durationSec: info.durationSec, sampleRate: info.sampleRate, bytes: info.fileBytes, info };
  } catch (err) {
    if (err instanceof AudioFileError) {
      // A WAV that looks unfinished may still be growing; the caller decides how long to wait.
      if (STILL_BEING_WRITTEN.has(err.reason) && err.reason !== 'empty') return { kind: 'not-ready', reason: err.message };
      return { kind: 'invalid', message: `${err.message}; detections go without a soundscape` };
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing', message: `${file}: audio deleted before it could be spooled; detections go without a soundscape` };
    return { kind: 'invalid', message: `${file}: ${errorMessage(err)}` };
  }
}

async function recordingStart(
  parsed: ParsedResultFile,
  name: string,
  audio: Extract<AudioInspection, { kind: 'wav' | 'flac' }> | null,
  audioPath: string | undefined,
  zone: string,
): Promise<{ date: Date; source: NewRecording['timeSource'] }> {
  if (parsed.recordingStart) {
    const at = new Date(parsed.recordingStart);
    if (!Number.isNaN(at.getTime())) return { date: at, source: 'sidecar' };
  }
  // A result file without audio: its base name is the audio's (pairing is by base name).
  const byName = recordingStartFromName(path.basename(name), zone) ?? recordingStartFromName(`${baseOf(name)}.wav`, zone);
  if (byName) return { date: byName, source: 'filename' };
  if (audio?.kind === 'wav') {
    const byMeta = recordingStartFromMetadata({ comment: audio.info.comment, guano: audio.info.guano }, zone);
    if (byMeta) return { date: byMeta, source: 'metadata' };
  }
  // Last resort: the file's modification time is about when the recording ended.
  const st = await stat(audioPath ?? name).catch(() => null);
  const endMs = st?.mtimeMs ?? Date.now();
  return { date: new Date(endMs - Math.round((audio?.durationSec ?? 0) * 1000)), source: 'mtime' };
}

/** First 64 KiB and size of a file, hashed: identifies a recording whatever its copy's times. */
async function contentKey(file: string): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const buf = Buffer.alloc(Math.min(size, 64 * 1024));
    await fh.read(buf, 0, buf.length, 0);
    return `${size}:${createHash('sha1').update(buf).digest('hex').slice(0, 16)}`;
  } finally {
    await fh.close();
  }
}

function spoolName(sourceKey: string, kind: 'wav' | 'flac'): string {
  return `${createHash('sha1').update(sourceKey).digest('hex').slice(0, 16)}.${kind}`;
}

async function leftInSpool(ctx: IngestContext, sourceKey: string): Promise<{ path: string; audio: Extract<AudioInspection, { kind: 'wav' | 'flac' }> } | null> {
  for (const kind of ['wav', 'flac'] as const) {
    const file = ctx.spool.pathFor(spoolName(sourceKey, kind));
    const audio = await inspectAudio(file);
    if (audio.kind === 'wav' || audio.kind === 'flac') return { path: file, audio };
  }
  return null;
}

async function spoolAudio(
  ctx: IngestContext,
  audioPath: string,
  alreadySpooled: boolean,
  sourceKey: string,
  kind: 'wav' | 'flac',
): Promise<string | null> {
  const free = await ctx.spool.freeBytes().catch(() => Number.POSITIVE_INFINITY);
  if (free < ctx.minFreeBytes) {
    if (alreadySpooled) await rm(audioPath, { force: true });
    return null;
  }
  const dest = ctx.spool.pathFor(spoolName(sourceKey, kind));
  if (alreadySpooled) {
    await rename(audioPath, dest);
  } else {
    await ctx.spool.take(audioPath, dest);
  }
  return dest;
}

function baseOf(resultPath: string): string {
  return path.basename(resultPath).replace(/\.(BirdNET\..*|detections\.json|json|csv)$/i, '');
}
