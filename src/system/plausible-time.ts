/**
 * The one rule for a plausible timestamp: not before 2020-01-01 (a clock that was never
 * set starts in 1970 or at the image's build date) and not more than a day after `now`
 * (a day allows any time zone mistake in the analyzer's names). Ingest holds back a
 * recording whose start breaks it (`ingest/recording-time.ts` words the reason); the
 * time-hold review releases it once it holds.
 *
 * @example
 * timeImplausibility(new Date('2019-12-31T23:59:59Z')) // 'before-earliest'
 * isPlausibleTimestamp(new Date('2025-06-01T12:00:00Z'), new Date('2025-06-01T12:00:00Z')) // true
 */

/** Timestamps before this are from a clock that has not been set. */
export const EARLIEST_PLAUSIBLE_TIME = new Date('2020-01-01T00:00:00Z');
/** How far ahead of the system clock a timestamp may lie. */
export const MAX_AHEAD_MS = 24 * 60 * 60 * 1000;

export type TimeImplausibility = 'invalid' | 'before-earliest' | 'too-far-ahead';

/** Why `date` is implausible at `now`, or undefined when it is plausible. */
export function timeImplausibility(date: Date, now: Date = new Date()): TimeImplausibility | undefined {
  const t = date.getTime();
  if (Number.isNaN(t)) return 'invalid';
  if (t < EARLIEST_PLAUSIBLE_TIME.getTime()) return 'before-earliest';
  if (t > now.getTime() + MAX_AHEAD_MS) return 'too-far-ahead';
  return undefined;
}

/** Not before 2020-01-01 and not more than one day ahead of `now`. */
export function isPlausibleTimestamp(date: Date, now: Date = new Date()): boolean {
  return timeImplausibility(date, now) === undefined;
}
