import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import { errorMessage } from '../errors.js';
import type { Queue } from './db.js';
import { forgetGoneFiles, type FolderIdentity } from './forget-gone-files.js';
import { getItem } from './get-item.js';
import { clearSpoolPath, spoolFilesToDelete, spoolUsage } from './retention.js';
import { retireAudiolessRecordings } from './retire-audioless.js';
import { retireSettled, type RetiredRows } from './retire-settled.js';
import { withholdQueuedAudio } from './withhold-audio.js';

/**
 * Housekeeping that runs first in each sweep, built from the config (again at each
 * reload): the species gate's expiry (policy/species-gate-sweep.ts), given by the daemon,
 * so that what it drops loses its spool copy in the same sweep. (upload/ sits below
 * policy/ and does not import it.)
 */
export interface SweepStep {
  /** `now`: the sweep's clock (the daemon's expiry clock). */
  run(now: number): void;
}
export type SweepStepFactory = (config: Config) => SweepStep;

/** Rows of each kind per transaction of the retirement (one short transaction each). */
const RETIRE_BATCH = 500;
/** How often the sweep walks `ingested_files` for files gone (a stat per old row: not every minute). */
const FORGET_EVERY_MS = 3_600_000;

/**
 * After upload: removes spool copies (at once, or after `retention.keepUploadedDays`;
 * also of recordings dropped, e.g. by the species gate's expiry, run here first),
 * and, only when the user opted in with `input.afterUpload`, deletes or moves the
 * analyzer's own audio file. Audio that is not uploaded is never deleted.
 */
export class RetentionSweeper {
  private running: Promise<void> | null = null;
  private lastForgetAt = -Infinity;
  private firstStep: SweepStep;

  constructor(
    private readonly queue: Queue,
    private config: Config,
    private readonly log: Logger,
    /** The clock expiries run by: the daemon's expiry clock (expiry-clock.ts), never a jumped wall clock. */
    private readonly now: () => number = Date.now,
    private readonly firstStepOf: SweepStepFactory = () => ({ run: () => {} }),
    /** The input folder the daemon holds (its lock's identity); null: absence there is not trusted, no file's row is forgotten. */
    private readonly heldInput: () => FolderIdentity | null = () => null,
  ) {
    this.firstStep = firstStepOf(config);
  }

  /** A reloaded config: the next sweep follows it (retention, after-upload action, species gate). */
  reconfigure(config: Config): void {
    this.config = config;
    this.firstStep = this.firstStepOf(config);
  }

  spoolBytes(): number {
    return spoolUsage(this.queue).bytes;
  }

  sweep(): Promise<void> {
    this.running ??= this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pass(): Promise<void> {
    const retentionMs = this.config.retention.keepUploadedDays * 86_400_000;
    const now = this.now();
    try {
      if (this.config.privacy.audio === 'never') await this.withholdAudio();
      const retired = retireAudiolessRecordings(this.queue, now - this.config.upload.noSoundscapeAfterSec * 1000, now);
      if (retired > 0) this.log.warn({ recordings: retired }, 'recordings without audio retired: their detections went without a soundscape');
      // Before the spool pass: recordings the gate drops lose their audio in this same sweep.
      this.firstStep.run(now);
      await this.deleteSpoolFiles(retentionMs, now);
      await this.retireRows(now);
      await this.forgetGoneFiles(now);
    } catch (err) {
      this.log.warn(`retention sweep: ${errorMessage(err)}`);
    }
  }

  private async deleteSpoolFiles(retentionMs: number, now: number): Promise<void> {
    for (let first = true; ; first = false) {
      const files = spoolFilesToDelete(this.queue, { retentionMs, limit: 100, now });
      if (files.length === 0) return;
      // The uploader's last outcomes are not fsynced until its next claim (upload/group-commit.ts):
      // an `uploaded` a power cut can still take back must not lose its audio first.
      if (first) this.queue.syncWal();
      for (const f of files) {
        await rm(f.spoolPath, { force: true });
        // A crash in the spool compaction leaves a WAV beside its FLAC (or a FLAC beside its WAV): it goes too.
        if (f.spoolPath.endsWith('.flac')) await rm(`${f.spoolPath.slice(0, -'.flac'.length)}.wav`, { force: true });
        if (f.spoolPath.endsWith('.wav')) {
          const base = f.spoolPath.slice(0, -'.wav'.length);
          await Promise.all([rm(`${base}.flac`, { force: true }), rm(`${base}.flac.part`, { force: true })]);
        }
        await this.afterUpload(f.recordingId);
        clearSpoolPath(this.queue, f.recordingId);
      }
      if (files.length < 100) return;
    }
  }

  /**
   * Settled rows older than `queue.retainDays` leave the database (queue/retire-settled.ts),
   * a batch per transaction with the event loop free in between, so uploads never wait
   * behind a long delete (the first sweep after an upgrade finds a whole history).
   */
  private async retireRows(now: number): Promise<void> {
    const before = now - this.config.queue.retainDays * 86_400_000;
    let total: RetiredRows = { detections: 0, recordings: 0 };
    for (;;) {
      const r = retireSettled(this.queue, { before, limit: RETIRE_BATCH, now });
      total = { detections: total.detections + r.detections, recordings: total.recordings + r.recordings };
      if (r.detections < RETIRE_BATCH && r.recordings < RETIRE_BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (total.detections + total.recordings > 0) this.log.info({ ...total, retainDays: this.config.queue.retainDays }, 'settled items older than queue.retainDays retired from the queue database');
  }

  /**
   * The rows of result files gone for good (queue/forget-gone-files.ts), recorded more than
   * `queue.retainDays` ago, once an hour by the sweep's clock; the first sweep after a start
   * looks at once (and each sweep while no input folder is held).
   */
  private async forgetGoneFiles(now: number): Promise<void> {
    if (now - this.lastForgetAt < FORGET_EVERY_MS) return;
    // No folder held (input.dir missing, unmounted): nothing to trust; the next sweep looks again.
    const held = this.heldInput();
    if (!held) return;
    this.lastForgetAt = now;
    const { retainDays } = this.config.queue;
    const files = await forgetGoneFiles(this.queue, { inputDir: this.config.input.dir, held, before: now - retainDays * 86_400_000 });
    if (files > 0) this.log.info({ files, retainDays }, 'files read more than queue.retainDays ago and gone from input.dir forgotten by the queue database');
  }

  /**
   * `privacy.audio: never` for what was queued before the switch: the recordings are
   * dropped (their detections go without a soundscape) and their spooled audio is
   * deleted at once. The first sweep runs at start, before anything is uploaded.
   */
  private async withholdAudio(): Promise<void> {
    const files = withholdQueuedAudio(this.queue, this.now());
    for (const f of files) {
      await rm(f.spoolPath, { force: true });
      if (f.spoolPath.endsWith('.flac')) await rm(`${f.spoolPath.slice(0, -'.flac'.length)}.wav`, { force: true });
      clearSpoolPath(this.queue, f.recordingId);
    }
    if (files.length > 0) {
      this.log.info({ recordings: files.length, policy: 'privacy' }, 'privacy.audio is never: soundscapes queued before are not uploaded, their audio is deleted');
    }
  }

  private async afterUpload(recordingId: number): Promise<void> {
    const action = this.config.input.afterUpload;
    if (action === 'keep') return;
    const item = getItem(this.queue, 'recording', recordingId);
    if (!item || item.state !== 'uploaded') return;
    const source = item.sourcePath;
    try {
      if (action === 'delete') {
        await rm(source, { force: true });
      } else if (action === 'move' && this.config.input.moveTo) {
        const dest = path.join(this.config.input.moveTo, path.relative(this.config.input.dir, source));
        await mkdir(path.dirname(dest), { recursive: true });
        await rename(source, dest);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.log.warn({ item: recordingId }, `input.afterUpload ${action} of ${source} failed: ${errorMessage(err)}`);
      }
    }
  }
}
