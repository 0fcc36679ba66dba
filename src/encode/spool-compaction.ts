import { lstat, rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import { unreferencedPath } from '../audio/audio-reference.js';
import type { FlacEncoder } from '../audio/flac-encoder.js';
import { errorCode, errorMessage } from '../errors.js';
import { compactionCandidates, markUnencodable, newestRecordingId, replaceWithFlac, type Queue, type WavRecording } from '../queue/index.js';
import { isAudioFault, MAX_IN_MEMORY_WAV_BYTES, spoolWavOptions } from './limits.js';

export interface SpoolCompactionOptions {
  /** Ids the uploader's encode step works on, shared: neither takes the other's. */
  busy: Set<number>;
  /** WAVs above this are always written as FLAC (they are never encoded into memory). */
  maxInMemoryBytes?: number;
  /** A WAV waiting this long is in a backlog: its FLAC file saves space. Default 15 min. */
  backlogAfterMs?: number;
  /** Free disk space is below `disk.minFreeMb`: WAVs waiting a minute are compacted. */
  diskLow?: () => boolean;
  /** A recording changed its spool file (the uploader may claim it now). */
  onCompacted?: () => void;
  /** How long to sleep when there is nothing to do (it is also woken by `notify`). Default 60 s. */
  idleMs?: number;
  now?: () => number;
}

const BATCH = 20;
const DISK_LOW_AFTER_MS = 60_000;
const PAUSE_MIN_MS = 1_000;
const PAUSE_MAX_MS = 300_000;

/**
 * Writes a waiting recording's FLAC into the spool where that pays, and only there
 * (with the service up, a recording is encoded into memory and sent, and nothing is
 * written for it):
 *
 * - a WAV too large to hold in memory (above {@link MAX_IN_MEMORY_WAV_BYTES}): it must
 *   be FLAC on disk before it can go;
 * - a backlog (the service down, an upload window closed): a WAV waiting longer than
 *   `backlogAfterMs`, or a minute while the disk runs low, becomes FLAC, about half its
 *   size, but only where the spool's link is the WAV's last one (the analyzerpi
 *   analyzer deletes its own; in results mode the analyzer keeps the file, and a FLAC
 *   beside it would cost space, not save it).
 *
 * The recording stays `pending` throughout (encoding is not a state): the FLAC is
 * written `.part`, fsynced, renamed, then `replaceWithFlac` swaps the spool file only if
 * the recording still waits with that WAV, and the WAV is removed. A crash in between
 * leaves a FLAC beside the WAV, written again by the next pass (and removed by
 * retention with the WAV).
 */
export class SpoolCompaction {
  private running = false;
  private loopDone: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private cursor = 0;
  private failures = 0;
  /** New audio was queued since the last pass began ({@link notify}). */
  private newAudio = false;
  /** The newest recording id a finished pass has looked past: a pass for new audio starts after it. */
  private seenId = 0;
  /** When the next pass over every waiting WAV is due (performance.now() ms): the age rule's. */
  private fullPassAt = 0;
  /** Recordings whose WAV is the analyzer's too: no saving in compacting them (bounded). */
  private readonly shared = new Set<number>();
  private readonly maxInMemory: number;
  private readonly backlogAfterMs: number;
  private readonly idleMs: number;
  private readonly now: () => number;

  constructor(
    private readonly queue: Queue,
    private readonly encoder: FlacEncoder,
    private readonly log: Logger,
    private readonly options: SpoolCompactionOptions,
  ) {
    this.maxInMemory = options.maxInMemoryBytes ?? MAX_IN_MEMORY_WAV_BYTES;
    this.backlogAfterMs = options.backlogAfterMs ?? 15 * 60_000;
    this.idleMs = options.idleMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** New audio was queued: look at it now (a WAV too large for memory cannot go until compacted). */
  notify(): void {
    this.newAudio = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loopDone;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let sleepMs = this.idleMs;
      try {
        sleepMs = await this.pass();
      } catch (err) {
        this.log.error({ code: errorCode(err) }, `spool compaction: queue error: ${errorMessage(err)}`);
      }
      if (!this.running) break;
      // Audio queued while the pass ran: look at it now, not after the sleep.
      if (this.newAudio) sleepMs = 0;
      if (sleepMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, sleepMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }

  /**
   * One batch of candidates; returns how long to sleep before the next (0: go on at once).
   * A pass for new audio looks only past the newest recording a finished pass saw: every
   * recording queued wakes the compaction, and a walk over the whole backlog each time would
   * cost a long outage's station O(backlog) per recording (in results mode the analyzer's
   * WAVs stay candidates by age, and are skipped one by one). The age rule is the full
   * passes', every `idleMs`, whatever wakes come between.
   */
  private async pass(): Promise<number> {
    const now = this.now();
    const diskLow = this.options.diskLow?.() ?? false;
    const age = diskLow ? DISK_LOW_AFTER_MS : this.backlogAfterMs;
    const full = !this.newAudio || diskLow || this.cursor !== 0 || performance.now() >= this.fullPassAt;
    this.newAudio = false;
    // Read before the candidates: a recording queued after it is new to the next pass.
    const newest = newestRecordingId(this.queue);
    const candidates = compactionCandidates(this.queue, {
      limit: BATCH,
      afterId: full ? this.cursor : this.seenId,
      maxInMemoryBytes: this.maxInMemory,
      queuedBefore: now - age,
    });
    for (const item of candidates) {
      if (!this.running) return 0;
      this.cursor = item.id;
      if (this.options.busy.has(item.id) || this.shared.has(item.id)) continue;
      const tooLarge = item.filesize == null || item.filesize > this.maxInMemory;
      if (!tooLarge && !(await this.lastLink(item))) continue;
      const paused = await this.compact(item);
      if (paused > 0) return paused;
    }
    if (candidates.length < BATCH) {
      this.cursor = 0;
      this.seenId = Math.max(this.seenId, newest);
      if (full) this.fullPassAt = performance.now() + this.idleMs;
      return Math.max(0, this.fullPassAt - performance.now());
    }
    return 0;
  }

  /**
   * Whether the spool's WAV is the file's only name (a FLAC then frees space). A reference to
   * the analyzer's file (audio/audio-reference.ts) never is: the analyzer keeps its file.
   */
  private async lastLink(item: WavRecording): Promise<boolean> {
    const st = await lstat(item.spoolPath).catch(() => null);
    if (st && (st.nlink > 1 || st.isSymbolicLink())) {
      if (this.shared.size >= 10_000) this.shared.clear();
      this.shared.add(item.id);
      return false;
    }
    return st !== null;
  }

  /** Encodes one WAV into its FLAC file; returns a pause (ms) after an encoder failure, else 0. */
  private async compact(item: WavRecording): Promise<number> {
    // Beside the spool's WAV; for a reference (a WAV too large for memory), in the spool under the recording's own name.
    const flacPath = unreferencedPath(item.spoolPath).replace(/\.wav$/i, '') + '.flac';
    this.options.busy.add(item.id);
    try {
      const result = await this.encoder.encode(item.spoolPath, flacPath, spoolWavOptions(item));
      this.failures = 0;
      const swapped = replaceWithFlac(this.queue, item.id, item.spoolPath, {
        spoolPath: flacPath,
        filesize: result.bytes,
        durationS: result.durationSec,
        sampleRate: result.sampleRate,
      });
      // Swapped: the WAV goes. Not swapped (uploaded from memory or dropped meanwhile): the FLAC goes.
      await rm(swapped ? item.spoolPath : flacPath, { force: true });
      if (swapped) {
        this.log.debug({ item: item.id, bytes: result.bytes, engine: result.engine }, 'waiting recording compacted to FLAC in the spool');
        this.options.onCompacted?.();
      }
      return 0;
    } catch (err) {
      const message = errorMessage(err);
      if (isAudioFault(err)) {
        // Only a `pending` one fails here; an `unknown` one is looked up at the service by the uploader.
        if (markUnencodable(this.queue, item.id, item.spoolPath, { error: message, code: errorCode(err) })) {
          this.log.error({ item: item.id, code: errorCode(err) }, `recording not uploadable, its detections go without a soundscape: ${message}`);
          this.options.onCompacted?.();
        } else {
          this.shared.add(item.id);
        }
        return 0;
      }
      const pauseMs = Math.min(PAUSE_MAX_MS, PAUSE_MIN_MS * 2 ** Math.min(this.failures, 20));
      this.failures++;
      this.log.warn({ item: item.id, code: errorCode(err), retryInMs: pauseMs }, `spool compaction: encoding failed, will retry: ${message}`);
      return pauseMs;
    } finally {
      this.options.busy.delete(item.id);
    }
  }
}
