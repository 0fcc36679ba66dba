import type { Stats } from 'node:fs';
import { existsSync } from 'node:fs';
import { readdir, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { errorCode, errorMessage, isTransient } from '../errors.js';
import { isFileDone, markFileDone } from '../queue/ingested-files.js';
import { openRegularFile } from '../system/regular-file.js';
import type { IngestContext } from './context.js';
import { classifyPath, type ResultClass } from './formats.js';
import { errorOutcome, ingestRecording, type IngestInput, type IngestOutcome } from './ingest-recording.js';

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
 *
 * Each file is classified once (`classify`, asked by the watcher) and the class travels
 * with it to ingest. Files wait their turn in one bounded list (`backlog`), never in a
 * chain of promises: the watcher counts them against its bound.
 */
export type InputMode = 'auto' | 'results' | 'analyzerpi';

/** What a file in the input folder is to the pairing: a result to ingest, or audio to take on sight. */
export type InputFile = ResultClass | { kind: 'audio'; takeOnSight: true };

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
  /** How long a result waits for its audio to be complete before it is taken as it is. Default 10 min. */
  audioWaitMs?: number;
}

const ANALYZERPI_WAV = /^\d{4}-\d{2}-\d{2}-birdnet-.*\.wav$/i;
const AUDIO_WAIT_MS = 10 * 60_000;

interface Waiting {
  st: Stats;
  what: ResultClass;
  finished: () => void;
}

export class Pairing {
  /** Result files handed over, in order, each once (a second hand-over replaces the first). */
  private readonly waiting = new Map<string, Waiting>();
  /** The file being ingested now. */
  private current: string | null = null;
  private worker: Promise<void> | null = null;
  private readonly waitingSince = new Map<string, number>();
  private readonly linking = new Map<string, Promise<void>>();
  /**
   * analyzerpi WAVs that could not be hard-linked (the spool is on another mount):
   * an open descriptor keeps the audio readable after the analyzer deletes the name,
   * and the copy is made only when ingest finds the recording wanted. Copying every
   * WAV on sight would write gigabytes a day to the SD card.
   */
  private readonly held = new Map<string, { handle: FileHandle; at: number }>();

  /** Since when this agent has been watching: a spooled WAV gets a full timeout of it to be paired. */
  private readonly startedAt = Date.now();

  constructor(private readonly opts: PairingOptions) {}

  /** What the watcher should follow, and as what; undefined for files of no interest. */
  classify = (file: string): InputFile | undefined => {
    // The near spool (input.ramDiskAudio keep) is inside input.dir: its links are the agent's, never input.
    if (this.opts.ctx.spool.isNear(file)) return undefined;
    const c = classifyPath(file);
    if (c.kind === 'ignored') return undefined;
    if (c.kind === 'audio') return this.takesOnSight(file) ? { kind: 'audio', takeOnSight: true } : undefined;
    if (c.kind === 'analyzerpi-json') return this.opts.mode !== 'results' ? c : undefined;
    return this.opts.mode !== 'analyzerpi' ? c : undefined;
  };

  isDone = (file: string, size: number, mtimeMs: number): boolean =>
    this.waiting.has(file) || this.current === file || isFileDone(this.opts.ctx.queue, file, size, mtimeMs);

  /** Result files handed over and not finished yet (the one being ingested included). */
  get backlog(): number {
    return this.waiting.size + (this.current ? 1 : 0);
  }

  /** analyzerpi: take the WAV before the analyzer deletes it. */
  onAppear = (file: string, what: InputFile): void => {
    if (what.kind !== 'audio' || this.linking.has(file)) return;
    const spool = this.opts.ctx.spool;
    const task = (async () => {
      // Only a regular file, opened without blocking: a FIFO named *.wav must not stall ingestion.
      const handle = await openRegularFile(file);
      let keep = false;
      try {
        // The near spool takes it while it has room (a RAM disk at least half free).
        if (await spool.linkIncoming(file, handle)) return;
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

  /** A file has been stable: a result is ingested in its turn; resolves when it is finished with. */
  onStable = (file: string, st: Stats, what: InputFile): Promise<void> | undefined =>
    what.kind === 'audio' ? undefined : this.scheduleIngest(file, st, what);

  /** Waits for everything handed over so far (tests, backfill, shutdown). */
  async idle(): Promise<void> {
    while (this.worker) await this.worker;
  }

  /** Closes what is held open (shutdown). */
  async close(): Promise<void> {
    for (const [file] of this.held) await this.release(file);
  }

  /** Removes spooled analyzerpi WAVs whose JSON never came. */
  async sweepIncoming(now = Date.now()): Promise<number> {
    let removed = 0;
    for (const [file, h] of [...this.held]) {
      if (now - h.at >= this.opts.jsonTimeoutMs) {
        await this.release(file);
        removed++;
      }
    }
    const spooled: string[] = [];
    for (const dir of this.opts.ctx.spool.incomingDirs) {
      for (const name of await readdir(dir).catch(() => [] as string[])) spooled.push(path.join(dir, name));
    }
    for (const file of spooled) {
      const name = path.basename(file);
      const st = await stat(file).catch(() => null);
      // Age counts from when the agent last started, not only from the link: after a
      // downtime longer than the timeout, the JSON may be waiting in the input folder.
      if (!st || now - Math.max(st.ctimeMs, this.startedAt) < this.opts.jsonTimeoutMs) continue;
      if (this.isHandedOver((f) => f.endsWith(`${name}.json`))) continue;
      await this.opts.ctx.spool.remove(file);
      removed++;
      this.opts.ctx.log.warn(`discarded ${name}: its analyzer result never came within ${Math.round(this.opts.jsonTimeoutMs / 1000)} s`);
    }
    return removed;
  }

  private isHandedOver(match: (file: string) => boolean): boolean {
    if (this.current && match(this.current)) return true;
    for (const file of this.waiting.keys()) if (match(file)) return true;
    return false;
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

  /**
   * Puts one result file in line to be ingested (the watcher's `onStable`, or a backfill);
   * resolves when it is finished with (ingested, marked, or handed back for a later look).
   */
  scheduleIngest(file: string, st: Stats, what: ResultClass): Promise<void> {
    return new Promise<void>((resolve) => {
      const before = this.waiting.get(file);
      this.waiting.set(file, {
        st,
        what,
        finished: () => {
          before?.finished();
          resolve();
        },
      });
      this.startWorker();
    });
  }

  /** One worker at a time; a file handed over while it was finishing starts the next. */
  private startWorker(): void {
    if (this.worker) return;
    this.worker = this.work().finally(() => {
      this.worker = null;
      if (this.waiting.size > 0) this.startWorker();
    });
  }

  private async work(): Promise<void> {
    for (let next = this.waiting.entries().next(); !next.done; next = this.waiting.entries().next()) {
      const [file, w] = next.value;
      this.waiting.delete(file);
      this.current = file;
      try {
        await this.ingestFile(file, w.st, w.what);
      } catch (err: unknown) {
        // A failure outside ingestRecording's own handling (the queue database full or
        // locked while the file is marked done) must not stop the line: every later file
        // would wait behind it.
        this.opts.ctx.log.error({ file, code: errorCode(err) }, `ingest of ${file} failed, looking at it again in 60 s: ${errorMessage(err)}`);
        this.opts.recheck(file, 60_000);
      } finally {
        this.current = null;
        w.finished();
      }
    }
  }

  /** Where a result's audio is, and how it is taken (linked on sight, held open, beside it). */
  private async pairedInput(file: string, what: ResultClass): Promise<IngestInput> {
    if (what.kind !== 'analyzerpi-json') return { resultPath: file, what, audioPath: findAudio(file, what.audioFileName ?? what.baseName) };
    const original = path.join(path.dirname(file), what.audioFileName);
    await this.linking.get(original);
    const spool = this.opts.ctx.spool;
    const spooled = spool.incomingDirs.map((dir) => path.join(dir, what.audioFileName)).find((f) => existsSync(f));
    if (spooled) return { resultPath: file, what, audioPath: original, spooledAudio: spooled };
    const held = this.held.get(original);
    // A WAV held open (not linked on sight) is copied onto the card, whatever the near spool's room.
    const to = path.join(spool.cardIncomingDir, what.audioFileName);
    return { resultPath: file, what, audioPath: original, ...(held && { heldAudio: { handle: held.handle, to } }) };
  }

  private async ingestFile(file: string, st: Stats, what: ResultClass): Promise<void> {
    const input: IngestInput = { ...(await this.pairedInput(file, what)), found: { size: st.size, mtimeMs: st.mtimeMs } };
    let outcome: IngestOutcome;
    try {
      outcome = await this.ingest(input);
      if (outcome.status === 'not-ready' && outcome.waitingFor === 'audio') {
        const since = this.waitingSince.get(file) ?? Date.now();
        this.waitingSince.set(file, since);
        if (Date.now() - since < (this.opts.audioWaitMs ?? AUDIO_WAIT_MS)) {
          this.opts.recheck(file, 5_000);
          return;
        }
        // The audio never completed: take what it holds, or go without it.
        outcome = await this.ingest({ ...input, audioAsItIs: true });
      }
    } finally {
      if (input.heldAudio && this.held.get(input.audioPath!)?.handle === input.heldAudio.handle) await this.release(input.audioPath!);
    }
    if (outcome.status === 'not-ready') {
      // The result file itself is unfinished (a last line without its line end, JSON that
      // does not parse yet): never read half a row; look again until it is complete, or
      // until it has not changed for result-stream's SETTLE_MS and is taken as it is.
      this.opts.ctx.log.debug({ file }, outcome.reason);
      this.opts.onOutcome?.(file, outcome);
      this.opts.recheck(file, RESULT_RECHECK_MS);
      return;
    }
    this.waitingSince.delete(file);
    this.opts.onOutcome?.(file, outcome);
    if (outcome.status === 'error' && isTransient(outcome.code)) {
      // A disk or database hiccup (the register's rule, src/errors.ts): try the file again later rather than marking it done.
      this.opts.recheck(file, 60_000);
      return;
    }
    if (this.opts.ctx.dryRun) return;
    // Queued and no-detections outcomes were marked in the recording's last transaction.
    if (outcome.status === 'error') markFileDone(this.opts.ctx.queue, file, st.size, st.mtimeMs, 'error', outcome.message);
    if (outcome.status === 'queued') this.opts.onQueued?.();
  }

  private async ingest(input: IngestInput): Promise<IngestOutcome> {
    try {
      return await ingestRecording(this.opts.ctx, input);
    } catch (err) {
      return errorOutcome(input.resultPath, err);
    }
  }
}

const MAX_HELD = 256;
/** How often an unfinished result file is looked at again. */
const RESULT_RECHECK_MS = 30_000;

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
