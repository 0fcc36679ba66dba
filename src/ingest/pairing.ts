import type { Stats } from 'node:fs';
import { existsSync } from 'node:fs';
import { readdir, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { errorCode, errorMessage } from '../errors.js';
import { isFileDone, markFileDone, type FileOutcome } from '../queue/ingested-files.js';
import { openRegularFile, readRegularFileText } from '../system/regular-file.js';
import { classifyPath, parseResultFile } from './formats.js';
import { ingestRecording, type IngestContext, type IngestOutcome } from './ingest-recording.js';

/**
 * Pairs the analyzer's audio with its result file and hands each pair to
 * `ingestRecording`, one at a time.
 *
 * - `results` input: the result file drives; its audio is the file with the same
 *   base name in the same folder (`.wav`, `.WAV`, `.flac`). A result whose audio is
 *   still being written is looked at again later; one without audio queues its
 *   detections without a soundscape.
 * - `analyzerpi` input: the analyzer deletes each WAV seconds after analysing it,
 *   so the WAV is hard-linked into the spool's `incoming/` the moment it appears;
 *   its `<wav>.json` then finds it there. A spooled WAV whose JSON never comes is
 *   discarded after `jsonTimeoutMs`.
 * - `auto`: both, deciding per file.
 */
export type InputMode = 'auto' | 'results' | 'analyzerpi';

export interface PairingOptions {
  ctx: IngestContext;
  mode: InputMode;
  jsonTimeoutMs: number;
  /** Asks the watcher to look at a file again later. */
  recheck: (file: string, delayMs?: number) => void;
  /** Something was queued: wake the encoder and uploader. */
  onQueued?: () => void;
  /** Per-file outcome, for logs and the backfill summary. */
  onOutcome?: (file: string, outcome: IngestOutcome) => void;
  /** The file is finished with (recorded as done): the watcher may release it. */
  onDone?: (file: string) => void;
  /** How long a result waits for its audio to be complete before going without it. Default 10 min. */
  audioWaitMs?: number;
}

const ANALYZERPI_WAV = /^\d{4}-\d{2}-\d{2}-birdnet-.*\.wav$/i;
const AUDIO_WAIT_MS = 10 * 60_000;

export class Pairing {
  private chain: Promise<void> = Promise.resolve();
  private readonly inProgress = new Set<string>();
  private readonly waitingSince = new Map<string, number>();
  private readonly linking = new Map<string, Promise<void>>();
  /**
   * analyzerpi WAVs that could not be hard-linked (the spool is on another mount):
   * an open descriptor keeps the audio readable after the analyzer deletes the name,
   * and the copy is made only when the JSON says the recording is wanted. Copying
   * every WAV on sight would write gigabytes a day to the SD card.
   */
  private readonly held = new Map<string, { handle: FileHandle; at: number }>();

  /** Since when this agent has been watching: a spooled WAV gets a full timeout of it to be paired. */
  private readonly startedAt = Date.now();

  constructor(private readonly opts: PairingOptions) {}

  /** Whether the watcher should follow a file at all. */
  isRelevant = (file: string): boolean => {
    const c = classifyPath(file);
    if (c.kind === 'ignored') return false;
    if (c.kind === 'audio') return this.takesOnSight(file);
    if (c.kind === 'analyzerpi-json') return this.opts.mode !== 'results';
    return this.opts.mode !== 'analyzerpi';
  };

  isDone = (file: string, size: number, mtimeMs: number): boolean =>
    this.inProgress.has(file) || isFileDone(this.opts.ctx.queue, file, size, mtimeMs);

  /** analyzerpi: take the WAV before the analyzer deletes it. */
  onAppear = (file: string): void => {
    if (!this.takesOnSight(file) || this.linking.has(file)) return;
    const dest = path.join(this.opts.ctx.spool.incomingDir, path.basename(file));
    const task = (async () => {
      // Only a regular file, opened without blocking: a FIFO named *.wav must not stall ingestion.
      const handle = await openRegularFile(file);
      let keep = false;
      try {
        if (await this.opts.ctx.spool.tryLink(file, dest, handle)) return;
        if (this.held.size >= MAX_HELD) {
          // Hundreds of WAVs without their JSON: the analyzer is behind or stopped writing results.
          this.opts.ctx.log.warn(`not holding ${file}: already ${MAX_HELD} WAVs wait for their results; it is uploaded only if it is still there when its JSON comes`);
          return;
        }
        this.held.set(file, { handle, at: Date.now() });
        keep = true;
      } finally {
        if (!keep) await handle.close();
      }
    })()
      .catch((err: unknown) => this.opts.ctx.log.warn(`could not take ${file} into the spool: ${errorMessage(err)}`))
      .finally(() => this.linking.delete(file));
    this.linking.set(file, task);
  };

  onStable = (file: string, st: Stats): void => {
    const c = classifyPath(file);
    if (c.kind === 'result' || c.kind === 'analyzerpi-json') this.enqueue(file, st);
  };

  /** Waits for everything handed over so far (tests, backfill, shutdown). */
  idle(): Promise<void> {
    return this.chain;
  }

  /** Closes what is held open (shutdown). */
  async close(): Promise<void> {
    for (const [file] of this.held) await this.release(file);
  }

  /** Removes spooled analyzerpi WAVs whose JSON never came. */
  async sweepIncoming(now = Date.now()): Promise<number> {
    const dir = this.opts.ctx.spool.incomingDir;
    let removed = 0;
    for (const [file, h] of [...this.held]) {
      if (now - h.at >= this.opts.jsonTimeoutMs) {
        await this.release(file);
        removed++;
      }
    }
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const file = path.join(dir, name);
      const st = await stat(file).catch(() => null);
      // Age counts from when the agent last started, not only from the link: after a
      // downtime longer than the timeout, the JSON may be waiting in the input folder.
      if (!st || now - Math.max(st.ctimeMs, this.startedAt) < this.opts.jsonTimeoutMs) continue;
      if (this.inProgress.size > 0 && [...this.inProgress].some((f) => f.endsWith(`${name}.json`))) continue;
      await this.opts.ctx.spool.remove(file);
      removed++;
      this.opts.ctx.log.warn(`discarded ${name}: its analyzer result never came within ${Math.round(this.opts.jsonTimeoutMs / 1000)} s`);
    }
    return removed;
  }

  /**
   * The JSON of a held WAV arrived: copy the audio into incoming/ only when the
   * recording has a detection worth uploading (decided by a cheap parse here, and
   * again by ingest).
   */
  private async copyHeld(original: string, spooled: string, jsonPath: string): Promise<void> {
    const held = this.held.get(original);
    if (!held) return;
    try {
      if (await this.wanted(jsonPath)) await this.opts.ctx.spool.copyFromHandle(held.handle, spooled, original);
    } catch (err) {
      this.opts.ctx.log.warn(`could not copy ${original} into the spool: ${errorMessage(err)}`);
    } finally {
      await this.release(original);
    }
  }

  private async wanted(jsonPath: string): Promise<boolean> {
    try {
      const parsed = parseResultFile(jsonPath, await readRegularFileText(jsonPath), { labels: this.opts.ctx.labels });
      // The same decision ingest makes: nothing to post, or audio the policies withhold, is not copied.
      const decision = this.opts.ctx.policy.decide(parsed.detections);
      return decision.post.length > 0 && !decision.withheld;
    } catch {
      return false;
    }
  }

  private async release(file: string): Promise<void> {
    const held = this.held.get(file);
    this.held.delete(file);
    await held?.handle.close().catch(() => undefined);
  }

  private takesOnSight(file: string): boolean {
    // privacy.audio never: no WAV is linked or held, so none reaches the spool.
    if (this.opts.mode === 'results' || !this.opts.ctx.policy.keepsAudio) return false;
    return this.opts.mode === 'analyzerpi' ? /\.wav$/i.test(file) : ANALYZERPI_WAV.test(path.basename(file));
  }

  /** Hands one result file over (the watcher's `onStable`, or a backfill). */
  enqueue(file: string, st: Stats): void {
    this.inProgress.add(file);
    this.chain = this.chain
      .then(() => this.handle(file, st))
      .catch((err: unknown) => {
        // A failure outside ingestRecording's own handling (the queue database full or
        // locked while the file is marked done) must not reject the chain: every later
        // file would be skipped behind it, and the rejection would end the process.
        this.opts.ctx.log.error({ file, code: errorCode(err) }, `ingest of ${file} failed, looking at it again in 60 s: ${errorMessage(err)}`);
        this.opts.recheck(file, 60_000);
      })
      .finally(() => this.inProgress.delete(file));
  }

  private async handle(file: string, st: Stats): Promise<void> {
    const c = classifyPath(file);
    let input: { resultPath: string; audioPath?: string; spooledAudio?: string };
    if (c.kind === 'analyzerpi-json') {
      const original = path.join(path.dirname(file), c.audioFileName);
      await this.linking.get(original);
      const spooled = path.join(this.opts.ctx.spool.incomingDir, c.audioFileName);
      await this.copyHeld(original, spooled, file);
      if (existsSync(spooled)) input = { resultPath: file, audioPath: original, spooledAudio: spooled };
      else input = { resultPath: file, audioPath: existsSync(original) ? original : undefined };
      if (!input.spooledAudio && !input.audioPath) input.audioPath = original;
    } else {
      input = { resultPath: file, audioPath: findAudio(file, c.kind === 'result' ? c.audioFileName ?? c.baseName : '') };
    }

    let outcome: IngestOutcome;
    try {
      outcome = await ingestRecording(this.opts.ctx, input);
    } catch (err) {
      outcome = { status: 'error', message: `${file}: ${errorMessage(err)}`, code: (err as { code?: string }).code ?? 'ERR_INGEST' };
    }
    if (outcome.status === 'not-ready' && outcome.waitingFor === 'result') {
      // The result file itself is unfinished (a last line without its line end, JSON that
      // does not parse yet): never read half a row; look again until it is complete, or
      // until it has not changed for result-stream's SETTLE_MS and is taken as it is.
      this.opts.ctx.log.debug({ file }, outcome.reason);
      this.opts.onOutcome?.(file, outcome);
      this.opts.recheck(file, RESULT_RECHECK_MS);
      return;
    }
    if (outcome.status === 'not-ready') {
      const since = this.waitingSince.get(file) ?? Date.now();
      this.waitingSince.set(file, since);
      if (Date.now() - since < (this.opts.audioWaitMs ?? AUDIO_WAIT_MS)) {
        this.opts.recheck(file, 5_000);
        return;
      }
      // The audio never completed: queue the detections without it, and say which audio.
      const reason = outcome.reason;
      outcome = await ingestRecording(this.opts.ctx, { resultPath: file });
      if ('problems' in outcome) outcome.problems.push(`${reason}; still incomplete after waiting for it, detections go without a soundscape`);
      if (outcome.status === 'not-ready') {
        this.opts.recheck(file, RESULT_RECHECK_MS);
        return;
      }
    }
    this.waitingSince.delete(file);
    this.opts.onOutcome?.(file, outcome);
    const done: FileOutcome = outcome.status === 'queued' ? 'queued' : outcome.status === 'no-detections' ? 'no-detections' : 'error';
    if (outcome.status === 'error' && isTransient(outcome.code)) {
      // A disk or database hiccup: try the file again later rather than marking it done.
      this.opts.recheck(file, 60_000);
      return;
    }
    if (!this.opts.ctx.dryRun) {
      markFileDone(this.opts.ctx.queue, file, st.size, st.mtimeMs, done, outcome.status === 'error' ? outcome.message : null);
      this.opts.onDone?.(file);
    }
    if (outcome.status === 'queued') this.opts.onQueued?.();
  }
}

const MAX_HELD = 256;
/** How often an unfinished result file is looked at again. */
const RESULT_RECHECK_MS = 30_000;

function isTransient(code: string): boolean {
  return (
    code === 'ENOSPC' ||
    code === 'EIO' ||
    code === 'EMFILE' ||
    code === 'ENFILE' ||
    code.startsWith('ERR_QUEUE') ||
    code === 'SQLITE_BUSY' ||
    // The queue database's disk is full: the file is not done, its detections are not queued.
    code === 'SQLITE_FULL'
  );
}

/** The audio file next to a result file with the same base name, if any. */
function findAudio(resultPath: string, baseOrName: string): string | undefined {
  if (!baseOrName) return undefined;
  const dir = path.dirname(resultPath);
  const candidates = /\.(wav|flac)$/i.test(baseOrName)
    ? [baseOrName]
    : [`${baseOrName}.wav`, `${baseOrName}.WAV`, `${baseOrName}.flac`, `${baseOrName}.FLAC`];
  for (const name of candidates) {
    const full = path.join(dir, path.basename(name.replace(/\\/g, '/')));
    if (existsSync(full)) return full;
  }
  return undefined;
}
