import type { Logger } from 'pino';
import type { EncodedFlac, FlacEncoder } from '../audio/flac-encoder.js';
import { errorCode, errorMessage } from '../errors.js';
import type { WavRecording } from '../queue/index.js';
import { isAudioFault, MAX_HELD_WAV_BYTES, MAX_IN_MEMORY_WAV_BYTES, spoolWavOptions } from './limits.js';

/** A WAV recording encoded for its upload: the FLAC in memory, or why its audio cannot be sent. */
export type PreparedSoundscape = WavRecording & ({ flac: EncodedFlac; fault?: undefined } | { flac?: undefined; fault: Error });

export interface PreparerOptions {
  /** WAVs larger than this are not encoded into memory. Default {@link MAX_IN_MEMORY_WAV_BYTES}. */
  maxWavBytes?: number;
  /** WAV bytes held at once (encoding, ready, being sent). Default {@link MAX_HELD_WAV_BYTES}. */
  maxHeldBytes?: number;
  /** Ids another encoder (the spool compaction) works on, shared: neither takes the other's. */
  busy?: Set<number>;
  now?: () => number;
}

/**
 * The encode step as the uploader drives it: how many of its slots the step holds, what it
 * may take now, the hand-over of what is ready, and when a paused step starts again.
 */
export interface EncodeStep {
  /** Encodes under way: each holds one of the uploader's slots. */
  readonly inProgress: number;
  /** Encoded recordings waiting for their claim: each holds a slot too. */
  readonly ready: number;
  /**
   * What a new encode may take now: the recordings not to hand over again and the largest
   * WAV it encodes into memory (larger ones wait for the spool compaction); null while it
   * may start none (paused, memory full, stopped).
   */
  intake(): { exclude: number[]; maxBytes: number } | null;
  /** Starts encoding these due WAV recordings (read, not claimed), as many as memory allows; how many started. */
  start(items: readonly WavRecording[]): number;
  /** Up to `max` encoded recordings, handed over for their claim; {@link EncodeStep.release} each once sent or let go. */
  take(max: number): PreparedSoundscape[];
  release(item: WavRecording): void;
  /** When a paused step may start again (epoch ms), or null when it is not paused. */
  readonly pausedUntilMs: number | null;
  /** Stopping: no new encodes, and what is ready is dropped (the recordings stay `pending`). */
  stop(): void;
}

/** The encoder's own failures pause the encode step, doubling from 1 s up to 5 min. */
const PAUSE_MIN_MS = 1_000;
const PAUSE_MAX_MS = 300_000;

/**
 * The encode step between the queue and the upload: the uploader hands it the due WAV
 * recordings it has slots for (read, not claimed), it encodes each into memory, and the
 * uploader claims the ready ones in its next pass (`claimEncoded`) and sends the FLAC
 * from memory. Nothing is written to the card for a recording that goes at once, and
 * the queue holds no "encoding" state: a crash mid-encode leaves the recording `pending`.
 *
 * Audio that cannot be encoded comes back as a `fault` (the uploader fails the
 * recording, or reconciles first when it was `unknown`); the encoder's own failures
 * (the flac program missing, the worker dead) pause the whole step with a backoff,
 * written nowhere: they are the station's, not the recording's.
 */
export class SoundscapePreparer implements EncodeStep {
  private readonly encoding = new Map<number, WavRecording>();
  private readonly readyItems = new Map<number, PreparedSoundscape>();
  private readonly busy: Set<number>;
  private readonly maxWavBytes: number;
  private readonly maxHeldBytes: number;
  private readonly now: () => number;
  /** WAV bytes encoding, ready or being sent. */
  private held = 0;
  private pausedUntil = 0;
  private failures = 0;
  private stopped = false;

  constructor(
    private readonly encoder: FlacEncoder,
    private readonly log: Logger,
    /** Called when an encode finished (the uploader's next pass claims it). */
    private readonly onReady: () => void,
    options: PreparerOptions = {},
  ) {
    this.busy = options.busy ?? new Set();
    this.maxWavBytes = options.maxWavBytes ?? MAX_IN_MEMORY_WAV_BYTES;
    this.maxHeldBytes = options.maxHeldBytes ?? MAX_HELD_WAV_BYTES;
    this.now = options.now ?? Date.now;
  }

  intake(): { exclude: number[]; maxBytes: number } | null {
    return this.canStart() ? { exclude: this.excluded(), maxBytes: this.maxWavBytes } : null;
  }

  /** Encodes under way: each holds one of the uploader's slots. */
  get inProgress(): number {
    return this.encoding.size;
  }

  /** Encoded recordings waiting for their claim: each holds a slot too. */
  get ready(): number {
    return this.readyItems.size;
  }

  /** Recordings not to hand over again: being encoded, ready or sent from memory, or taken by the compaction. */
  excluded(): number[] {
    return [...this.busy];
  }

  /** Whether a new encode may start now (not paused by an encoder failure, memory left). */
  canStart(): boolean {
    return !this.stopped && this.now() >= this.pausedUntil && this.held < this.maxHeldBytes;
  }

  /** When a paused encode step may start again (epoch ms), or null when it is not paused. */
  get pausedUntilMs(): number | null {
    return this.now() < this.pausedUntil ? this.pausedUntil : null;
  }

  /**
   * Starts encoding `items` (from `wavRecordingsDue`), as many as memory allows.
   * Returns how many started.
   */
  start(items: readonly WavRecording[]): number {
    let started = 0;
    for (const item of items) {
      if (!this.canStart() || this.encoding.has(item.id) || this.readyItems.has(item.id) || this.busy.has(item.id)) continue;
      const size = item.filesize ?? this.maxWavBytes;
      if (this.held > 0 && this.held + size > this.maxHeldBytes) break;
      this.held += size;
      this.encoding.set(item.id, item);
      this.busy.add(item.id);
      started++;
      void this.encodeOne(item);
    }
    return started;
  }

  /** Up to `max` encoded recordings, handed over for their claim (then {@link release} each once sent). */
  take(max: number): PreparedSoundscape[] {
    const out: PreparedSoundscape[] = [];
    for (const [id, item] of this.readyItems) {
      if (out.length >= max) break;
      this.readyItems.delete(id);
      out.push(item);
    }
    return out;
  }

  /** A taken recording is done with (sent, failed, or not claimed): its memory is free. */
  release(item: WavRecording): void {
    this.held = Math.max(0, this.held - (item.filesize ?? this.maxWavBytes));
    this.busy.delete(item.id);
  }

  /** No new encodes; what is ready is dropped (the recordings stay `pending`, encoded again after a restart). */
  stop(): void {
    this.stopped = true;
    for (const item of this.take(Number.POSITIVE_INFINITY)) this.release(item);
  }

  private async encodeOne(item: WavRecording): Promise<void> {
    let prepared: PreparedSoundscape | undefined;
    try {
      const flac = await this.encoder.encodeToMemory(item.spoolPath, spoolWavOptions(item));
      this.failures = 0;
      this.log.debug({ item: item.id, bytes: flac.bytes, engine: flac.engine, into: 'memory' }, 'recording encoded to FLAC');
      prepared = { ...item, flac };
    } catch (err) {
      if (isAudioFault(err)) {
        prepared = { ...item, fault: err as Error };
      } else if (!this.stopped) {
        const pauseMs = Math.min(PAUSE_MAX_MS, PAUSE_MIN_MS * 2 ** Math.min(this.failures, 20));
        this.failures++;
        this.pausedUntil = this.now() + pauseMs;
        this.log.warn({ item: item.id, code: errorCode(err), retryInMs: pauseMs }, `encoding failed, soundscapes wait: ${errorMessage(err)}`);
      }
    } finally {
      this.encoding.delete(item.id);
    }
    if (prepared && !this.stopped) {
      this.readyItems.set(item.id, prepared);
    } else {
      this.release(item);
    }
    this.onReady();
  }
}
