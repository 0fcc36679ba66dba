import { isoDate, isoWithOffsetMs, localFieldsAt, localTimeInZone, midnightAfter } from '../system/zone.js';

/**
 * The daily data budget of audio uploads (`upload.audioBytesPerDay`): the bytes of
 * soundscape bodies sent on the current local day (`station.timezone`), counted as
 * they leave (an upload cut off half-way still cost its bytes on a metered link).
 * Once the day's bytes reach the budget, audio waits for the next local midnight.
 *
 * The count survives restarts: it is kept in the queue's meta table, written with the
 * upload's outcome (in the uploader's group commit, no commit of its own) and at stop
 * (not per chunk: the SD card counts writes), so a crash loses at most the bytes of the
 * uploads in flight. Without a budget nothing is written: the count would serve nothing.
 *
 * The day only moves forward. A clock behind (a boot before NTP, a run with the clock a
 * day back) keeps counting into the latest day seen, so what was spent today is not lost
 * and not spent twice; the budget renews at the midnight after that day. A clock jumped
 * far ahead cannot roll the day either: the daemon gives this budget its expiry clock
 * (queue/expiry-clock.ts), which does not follow an implausible jump.
 */

export interface BudgetDay {
  /** Local date, `2024-05-01`. */
  day: string;
  bytes: number;
}

export interface BudgetStore {
  load(): BudgetDay | undefined;
  save(value: BudgetDay): void;
}

export interface BudgetState {
  limit: number;
  usedToday: number;
  left: number;
  /** The start of the next local day (epoch ms), when the budget renews. */
  renewsAt: number;
}

export class DailyBudget {
  private loaded: BudgetDay | undefined;
  private dirty = false;

  constructor(
    readonly limit: number | null,
    private readonly zone: string,
    private readonly store: BudgetStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Today's count, read at first need: without a budget it never is, so a station without
   * `upload.audioBytesPerDay` does no time-zone work (on a Pi, the first use of the time-zone
   * data keeps about 8 MB of it resident).
   */
  private get current(): BudgetDay {
    return (this.loaded ??= this.store.load() ?? { day: this.dayOf(this.now()), bytes: 0 });
  }

  private set current(value: BudgetDay) {
    this.loaded = value;
  }

  /**
   * Counts bytes sent now. Without a budget nothing is counted, so nothing is written:
   * a station without `upload.audioBytesPerDay` pays no meta write per soundscape.
   */
  add(bytes: number): void {
    if (this.limit === null) return;
    this.roll();
    this.current.bytes += bytes;
    this.dirty = true;
  }

  /** True while today's bytes are below the budget (always without one). */
  allows(): boolean {
    if (this.limit === null) return true;
    this.roll();
    return this.current.bytes < this.limit;
  }

  usedToday(): number {
    if (this.limit === null) return 0;
    this.roll();
    return this.current.bytes;
  }

  state(): BudgetState | null {
    if (this.limit === null) return null;
    const used = this.usedToday();
    return { limit: this.limit, usedToday: used, left: Math.max(0, this.limit - used), renewsAt: dayAfter(this.current.day, this.zone) };
  }

  /** Writes the count when it changed since the last write (and only with a budget). */
  flush(): void {
    if (!this.dirty || this.limit === null) return;
    this.store.save({ ...this.current });
    this.dirty = false;
  }

  private roll(): void {
    const today = this.dayOf(this.now());
    // ISO dates compare as strings. Never backwards: see the comment at the top.
    if (today > this.current.day) {
      this.current = { day: today, bytes: 0 };
      this.dirty = true;
    }
  }

  private dayOf(at: number): string {
    return localDay(at, this.zone);
  }
}

/**
 * The calendar day (`YYYY-MM-DD`) in `zone` of an instant (ms, or an ISO time with its
 * offset as the queue stores it); '' for an invalid one.
 */
export function localDay(at: number | string, zone: string): string {
  const ms = typeof at === 'number' ? at : isoWithOffsetMs(at);
  return Number.isFinite(ms) ? isoDate(localFieldsAt(ms, zone)) : '';
}

/** The local midnight that ends `day` (`YYYY-MM-DD`). */
export function dayAfter(day: string, zone: string): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return localTimeInZone(midnightAfter({ year, month, day: date }, 1), zone)?.getTime() ?? Number.NaN;
}
