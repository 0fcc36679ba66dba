import type { Transform } from 'node:stream';
import { pacedStream, TokenBucket } from './bandwidth.js';
import { DailyBudget, type BudgetState, type BudgetStore } from './data-budget.js';
import { UploadWindows } from './windows.js';

/**
 * The policies of a metered or intermittent link, in one place for the uploader:
 * upload windows (`upload.windows`, for everything or, with `upload.windowsAudioOnly`,
 * for audio only), the daily data budget of audio (`upload.audioBytesPerDay`) and the
 * bandwidth cap of audio (`upload.audioBytesPerSec`).
 *
 * What is held and what goes:
 * - window closed, not audio-only: nothing is claimed (uploads in flight finish);
 * - window closed with `windowsAudioOnly`, or budget spent: soundscapes wait;
 *   detections go, those whose soundscape waits after `upload.noSoundscapeAfterSec`
 *   without it (see claim-detections.ts);
 * - the cap paces the bytes of soundscape bodies; detections are not paced.
 */

export interface LinkSettings {
  windows: readonly string[];
  windowsAudioOnly: boolean;
  audioBytesPerSec: number | null;
  audioBytesPerDay: number | null;
  zone: string;
}

/** What the uploader may claim now. */
export interface LinkVerdict {
  /** Detections (and everything else) may go. */
  uploads: boolean;
  /** Soundscapes may go. */
  audio: boolean;
  /** Why something is held, in words; null when nothing is. */
  held: string | null;
  /** When the verdict may change by itself (window change, new day), in the policy's clock; null when it cannot. */
  changesAt: number | null;
  /** Milliseconds until then (what the uploader sleeps at most); null when it cannot change. */
  changesInMs: number | null;
}

/** The uploader's view (see `Uploader`'s `link` option). */
export interface LinkGate {
  /** By the policy's own wall clock (the station's local time decides windows and days). */
  verdict(): LinkVerdict;
  /** The Transform a soundscape body passes through: paces and counts its bytes. */
  audioBody(): Transform;
  /** Whether the bandwidth cap paces audio (without it, a body in memory goes whole, counted by `audioSent`). */
  readonly pacesAudio: boolean;
  /** Bytes of a soundscape body sent without `audioBody` (a FLAC from memory, no cap): the day's count and the rate. */
  audioSent(bytes: number): void;
  /** A soundscape upload ended, however: the day's count is written. */
  audioDone(): void;
}

export interface LinkStatus {
  windows: string[];
  windowsAudioOnly: boolean;
  /** Open now (always true without windows). */
  windowOpen: boolean;
  /** When the window next opens or closes (ISO in the snapshot's consumers); null without windows. */
  windowChangesAt: number | null;
  budget: BudgetState | null;
  capBytesPerSec: number | null;
  /** Audio bytes per second sent over the last {@link RATE_WINDOW_S} seconds. */
  rateBytesPerSec: number;
}

const RATE_WINDOW_S = 10;

export class LinkPolicy implements LinkGate {
  windows!: UploadWindows;
  budget!: DailyBudget;
  private bucket: TokenBucket | null = null;
  private readonly rate = new RateMeter(RATE_WINDOW_S);

  constructor(
    private settings: LinkSettings,
    private readonly store: BudgetStore,
    private readonly now: () => number = Date.now,
  ) {
    this.update(settings);
  }

  /**
   * New settings (a config reload): the next verdict and the next audio body follow
   * them. The day's spent bytes are kept (the budget is stored), a body in flight keeps
   * its pace.
   */
  update(settings: LinkSettings): void {
    this.budget?.flush();
    this.settings = settings;
    this.windows = new UploadWindows(settings.windows, settings.zone);
    this.budget = new DailyBudget(settings.audioBytesPerDay, settings.zone, this.store, this.now);
    this.bucket = settings.audioBytesPerSec ? new TokenBucket({ rate: settings.audioBytesPerSec }) : null;
  }

  verdict(at: number = this.now()): LinkVerdict {
    const w = this.windows.state(at);
    const verdict = (uploads: boolean, audio: boolean, held: string | null, changesAt: number | null): LinkVerdict => ({
      uploads,
      audio,
      held,
      changesAt,
      changesInMs: changesAt === null ? null : Math.max(0, changesAt - at),
    });
    const windows = this.settings.windows.join(', ');
    if (!w.open && !this.settings.windowsAudioOnly) return verdict(false, false, `outside the upload windows (${windows})`, w.changesAt);
    if (!w.open) return verdict(true, false, `audio waits: outside the upload windows (${windows})`, w.changesAt);
    if (!this.budget.allows()) {
      const b = this.budget.state()!;
      return verdict(true, false, `audio waits: the day's data budget of ${b.limit} bytes is spent`, b.renewsAt);
    }
    return verdict(true, true, null, w.changesAt);
  }

  audioBody(): Transform {
    return pacedStream(this.bucket, (n) => this.audioSent(n));
  }

  get pacesAudio(): boolean {
    return this.bucket !== null;
  }

  audioSent(bytes: number): void {
    this.budget.add(bytes);
    this.rate.add(bytes, this.now());
  }

  audioDone(): void {
    this.budget.flush();
  }

  status(at: number = this.now()): LinkStatus {
    const w = this.windows.state(at);
    return {
      windows: [...this.settings.windows],
      windowsAudioOnly: this.settings.windowsAudioOnly,
      windowOpen: w.open,
      windowChangesAt: w.changesAt,
      budget: this.budget.state(),
      capBytesPerSec: this.settings.audioBytesPerSec,
      rateBytesPerSec: this.rate.perSecond(at),
    };
  }
}

/** Bytes per second over the last `seconds`, from per-second buckets (no list that grows). */
class RateMeter {
  private readonly slots: { second: number; bytes: number }[];

  constructor(private readonly seconds: number) {
    this.slots = Array.from({ length: seconds }, () => ({ second: -1, bytes: 0 }));
  }

  add(bytes: number, at: number): void {
    const second = Math.floor(at / 1000);
    const slot = this.slots[second % this.seconds];
    if (slot.second !== second) Object.assign(slot, { second, bytes: 0 });
    slot.bytes += bytes;
  }

  perSecond(at: number): number {
    const now = Math.floor(at / 1000);
    const total = this.slots.filter((s) => s.second > now - this.seconds && s.second <= now).reduce((a, s) => a + s.bytes, 0);
    return Math.round(total / this.seconds);
  }
}
