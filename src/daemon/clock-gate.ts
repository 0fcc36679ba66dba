import type { Config } from '../config/index.js';
import { errorMessage } from '../errors.js';
import { releasePlausibleTimeHolds } from '../ingest/time-holds.js';
import { clockSyncState, type ClockSyncState } from '../system/clock.js';
import { clockHold } from '../system/clock-gate.js';
import type { ChangedKeys } from './changed-keys.js';
import type { Component } from './component.js';
import type { StationContext } from './context.js';

/** The gate's tick: held items are judged again, and the system asked when that is due. */
const CLOCK_CHECK_MS = 60_000;

/** While the clock is not synchronised: the system is asked every minute. */
const CLOCK_PROBE_WAITING_MS = 60_000;
/** Once synchronised, and at most when the system cannot say: every 15 minutes. */
const CLOCK_PROBE_SETTLED_MS = 15 * 60_000;

/**
 * How long after an answer the system is asked again for its clock's sync state.
 * - `unsynchronized`: a minute. Uploads may wait for it (`clock.requireSync`), and the
 *   expiry clock trusts a jump only once it is synchronised: the moment NTP syncs matters.
 * - `synchronized`: 15 minutes. The kernel flags the clock unsynchronised again only when
 *   its estimated error passes 16 s, some 9 hours after the last NTP update (500 ppm),
 *   so a later answer loses nothing.
 * - `unknown` (no timesyncd file and no answer from `timedatectl`, which is not even asked
 *   without systemd: containers, another init; or D-Bus not up yet at boot): 1, 2, 4, 8
 *   minutes after the 1st, 2nd, 3rd, 4th such answer in a row, then every 15. A system that
 *   cannot say usually never will, and each question costs a process; one whose D-Bus comes
 *   up late at boot is heard within minutes.
 * @param unknownStreak answers in a row that were `unknown`, this one included.
 * @example clockProbeDelayMs('unknown', 3) // 240000
 */
function clockProbeDelayMs(state: ClockSyncState, unknownStreak: number): number {
  if (state === 'unsynchronized') return CLOCK_PROBE_WAITING_MS;
  if (state === 'synchronized') return CLOCK_PROBE_SETTLED_MS;
  return Math.min(CLOCK_PROBE_WAITING_MS * 2 ** Math.max(0, unknownStreak - 1), CLOCK_PROBE_SETTLED_MS);
}

/**
 * Holds uploads while the clock cannot be trusted (the rule: system/clock-gate.ts). Once a
 * minute it judges again the items held for an implausible time, while the clock is
 * trusted (a wrong clock at ingest made good times look implausible, see
 * ingest/time-holds.ts), and asks the system for its sync state when that is due
 * ({@link clockProbeDelayMs}): every minute while the clock is not synchronised, far
 * less often once it is or when the system cannot say, because where timesyncd's file is
 * missing (chrony, ntpd, no systemd) each answer costs a `timedatectl` process.
 */
export class ClockGate implements Component {
  readonly name = 'clock gate';
  state: ClockSyncState = 'unknown';
  private timer: NodeJS.Timeout | undefined;
  private readonly probe: () => Promise<ClockSyncState>;
  private readonly monotonic: () => number;
  /** When the system is asked next (monotonic ms). */
  private probeAt = 0;
  /** Answers in a row that were `unknown`. */
  private unknownStreak = 0;

  /**
   * The system's answer ({@link clockSyncState}) and the monotonic milliseconds the
   * probes are timed by (a jump of the wall clock must not bring a probe forward or hold
   * it back: `performance.now`) come from the context's options in tests.
   */
  constructor(private readonly ctx: StationContext) {
    this.probe = ctx.options.clock?.probe ?? (() => clockSyncState());
    this.monotonic = ctx.options.clock?.monotonic ?? (() => performance.now());
    ctx.state.publish('clock', () => this.state);
  }

  /** Why uploads wait for the clock now, or null (the rule: system/clock-gate.ts; the uploader asks it of the published state). */
  hold(): string | null {
    return clockHold(this.ctx.config.current.clock.requireSync, this.state);
  }

  async start(): Promise<void> {
    this.state = await this.ask();
    this.reviewTimeHolds();
    this.timer = setInterval(() => void this.check(), CLOCK_CHECK_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  reload(_next: Config, changed: ChangedKeys): void {
    if (!changed.has('clock.requireSync')) return;
    this.reviewTimeHolds();
    if (!this.hold()) this.ctx.bus.emit('sendable');
  }

  private async check(): Promise<void> {
    // Due within half a tick counts as due: the ticks and the answers drift by milliseconds.
    if (this.monotonic() + CLOCK_CHECK_MS / 2 >= this.probeAt) {
      const s = await this.ask();
      if (s !== this.state) this.ctx.log.info({ clock: s }, `system clock: ${s}`);
      this.state = s;
    }
    this.reviewTimeHolds();
    if (!this.hold()) this.ctx.bus.emit('sendable');
  }

  /** The system's answer, and when to ask again. */
  private async ask(): Promise<ClockSyncState> {
    const askedAt = this.monotonic();
    const s = await this.probe();
    this.unknownStreak = s === 'unknown' ? this.unknownStreak + 1 : 0;
    this.probeAt = askedAt + clockProbeDelayMs(s, this.unknownStreak);
    return s;
  }

  private reviewTimeHolds(): void {
    if (this.hold()) return;
    try {
      const released = releasePlausibleTimeHolds(this.ctx.queue);
      if (released.recordings + released.detections > 0) {
        this.ctx.log.info(released, 'items held for an implausible time are plausible by the clock now: released');
        this.ctx.bus.emit('sendable');
      }
    } catch (err) {
      this.ctx.log.warn(`reviewing held items failed: ${errorMessage(err)}`);
    }
  }
}
