import { parseTimeRange, type TimeRange } from '../config/time-range.js';
import { localFieldsAt, localTimeInZone, midnightAfter } from '../system/zone.js';

export { parseTimeRange, type TimeRange };

/**
 * Upload windows: local time ranges (`22:00-06:00`) in the station's time zone during
 * which uploads (or only audio uploads) may go. A range whose end is before its start
 * runs across midnight; `00:00-24:00` is the whole day. Times are wall-clock times of
 * `station.timezone`, so a window keeps its local hours across DST changes: on the
 * night the clocks go forward, `01:30-02:30` in Europe/Berlin is shorter (02:00-02:59
 * does not exist), on the night they go back it is longer. Local times come from
 * system/zone.ts: no luxon or Intl where the zone is UTC or the system's own.
 */

/** True when `minute` (since local midnight) lies in the range; across midnight when end < start. */
function contains(r: TimeRange, minute: number): boolean {
  return r.start < r.end ? minute >= r.start && minute < r.end : minute >= r.start || minute < r.end;
}

export interface WindowState {
  open: boolean;
  /** When the state next changes (epoch ms); null when it never does (always open). */
  changesAt: number | null;
}

export class UploadWindows {
  readonly ranges: readonly TimeRange[];

  /** `ranges` already validated (the config schema parses them); an empty list is always open. */
  constructor(
    texts: readonly string[],
    private readonly zone: string,
  ) {
    this.ranges = texts.map((t) => {
      const r = parseTimeRange(t);
      if (typeof r === 'string') throw new TypeError(`upload window ${r}`);
      return r;
    });
  }

  get restricted(): boolean {
    return this.ranges.length > 0;
  }

  isOpen(at: number): boolean {
    if (!this.restricted) return true;
    const local = localFieldsAt(at, this.zone);
    const minute = local.hour * 60 + local.minute;
    return this.ranges.some((r) => contains(r, minute));
  }

  /** Open or closed at `at`, and when that changes. */
  state(at: number): WindowState {
    const open = this.isOpen(at);
    return { open, changesAt: this.restricted ? this.nextChange(at, open) : null };
  }

  /**
   * The first range boundary after `at` where the state flips. Boundaries are local
   * wall times turned into instants by `localTimeInZone` (a time skipped by DST is read at
   * the offset before the change, so it moves forward; a time that happens twice is its
   * first); three days of candidates always hold a flip unless the ranges cover the whole day.
   */
  private nextChange(at: number, open: boolean): number | null {
    const today = localFieldsAt(at, this.zone);
    const candidates: number[] = [];
    for (let day = 0; day <= 3; day++) {
      const date = midnightAfter(today, day);
      for (const r of this.ranges) {
        for (const minute of [r.start, r.end]) {
          // 1440 (`24:00`) is 24:00 of the date, which wallMillis reads as the next midnight.
          const t = localTimeInZone({ ...date, hour: Math.floor(minute / 60), minute: minute % 60 }, this.zone)?.getTime();
          if (t !== undefined && t > at) candidates.push(t);
        }
      }
    }
    candidates.sort((a, b) => a - b);
    return candidates.find((t) => this.isOpen(t) !== open) ?? null;
  }
}
