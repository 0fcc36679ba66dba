import { EARLIEST_PLAUSIBLE_TIME, MAX_AHEAD_MS, isPlausibleTimestamp } from '../system/plausible-time.js';

/**
 * The clock by which the queue's expiries run: the species gate dropping held detections,
 * the spool retention deleting uploaded audio, recordings without audio retired, and the
 * day of the data budget. Each of these is irreversible when it fires early, and a Pi's
 * clock can jump: a wrong RTC or GPS time, an operator's typo, a test with a faked clock.
 * A clock at 2100 for a minute once dropped every species-gate hold (issue 19 item 7).
 *
 * The rule (system/plausible-time.ts): a time is plausible when it is not before 2020 and
 * not more than a day ahead of the reference, and the reference is the last trusted time
 * (at start: the queue's last write, `lastKnown`) plus the monotonic time since. So:
 * - a clock that runs on normally, or steps by less than a day (NTP), is followed, and
 *   becomes the new reference;
 * - a clock behind (a boot before NTP) is followed too: expiries then fire late, never
 *   early (and the data budget never rolls back, see data-budget.ts);
 * - a clock more than a day ahead is not: expiries follow the reference until the system
 *   reports NTP sync (`synced`), or the jump has held steadily for a day. After a long
 *   stop, where only the system's sync can tell a real gap from a jump, that is the price:
 *   expiries late by up to a day, never early.
 * - steps add up: "a day ahead" is measured from the last *settled* time (at start, at a
 *   sync, or once no step came for a day), not from the last step. Two steps of 20 h
 *   within a day are 40 h ahead, and the second is not followed: a clock stepped again and
 *   again would otherwise walk the expiries forward a day at a time (issue 35).
 *
 * `now()` is cheap (no I/O): the retention sweep and the link policy call it freely.
 */
export interface ExpiryClockOptions {
  /** The wall clock (the daemon's `now` option in tests). Default `Date.now`. */
  wall?: () => number;
  /** A monotonic clock in ms. Default `performance.now`. */
  mono?: () => number;
  /** The last time the queue was written before this start (epoch ms); null for a new queue. */
  lastKnown?: number | null;
  /** True while the system reports the clock NTP-synchronised: then the wall clock is trusted as it is. */
  synced?: () => boolean;
  /** Told once per jump that is not followed. */
  onJump?: (wall: number, reference: number) => void;
}

/** How steady a jump must be (wall minus monotonic) to count as the same jump. */
const STEADY_MS = 60_000;

export class ExpiryClock {
  private readonly wall: () => number;
  private readonly mono: () => number;
  private readonly synced: () => boolean;
  /** wall - mono of the last trusted reading: the reference is `mono() + offset`. */
  private offset: number | null;
  /** wall - mono of the last settled reading: a followed clock stays within a day of `mono() + settled`. */
  private settled: number | null;
  /** When (mono) the trusted clock last stepped forward; a day without a step settles it. */
  private steppedAt: number | null = null;
  /** A jump seen, not (yet) followed: its wall - mono, and since when (mono). */
  private jump: { offset: number; since: number } | null = null;

  constructor(private readonly options: ExpiryClockOptions = {}) {
    this.wall = options.wall ?? Date.now;
    this.mono = options.mono ?? (() => performance.now());
    this.synced = options.synced ?? (() => false);
    this.offset = options.lastKnown != null && options.lastKnown > 0 ? options.lastKnown - this.mono() : null;
    this.settled = this.offset;
  }

  /** The time expiries run by: the wall clock, or the reference while the wall clock is implausibly ahead. */
  readonly now = (): number => {
    const wall = this.wall();
    const mono = this.mono();
    if (this.synced()) return this.settle(wall, mono);
    // No reference yet (a new queue): a plausible clock becomes it; an unset one (1970) does not.
    if (this.offset === null || this.settled === null) return wall >= EARLIEST_PLAUSIBLE_TIME.getTime() ? this.settle(wall, mono) : wall;
    const reference = mono + this.offset;
    if (this.steppedAt !== null && mono - this.steppedAt >= MAX_AHEAD_MS) this.settled = this.offset;
    if (isPlausibleTimestamp(new Date(wall), new Date(mono + this.settled))) {
      // Behind is followed without moving the reference back: a later return to the right time stays plausible.
      return wall >= reference ? this.trust(wall, mono) : wall;
    }
    if (wall < reference) return wall; // before 2020: expiries only fire later
    const offset = wall - mono;
    if (this.jump && Math.abs(this.jump.offset - offset) <= STEADY_MS) {
      if (mono - this.jump.since >= MAX_AHEAD_MS) return this.settle(wall, mono);
    } else {
      this.jump = { offset, since: mono };
      this.options.onJump?.(wall, reference);
    }
    return reference;
  };

  /** Follows `wall`; a step forward of more than the steady margin restarts the day that settles it. */
  private trust(wall: number, mono: number): number {
    const offset = wall - mono;
    if (this.offset !== null && offset - this.offset > STEADY_MS) this.steppedAt = mono;
    this.offset = offset;
    this.jump = null;
    return wall;
  }

  /** Follows `wall` as a time beyond doubt (synced, held for a day, or the first of a new queue). */
  private settle(wall: number, mono: number): number {
    this.trust(wall, mono);
    this.settled = this.offset;
    this.steppedAt = null;
    return wall;
  }
}
