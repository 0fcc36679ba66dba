import { DateTime, IANAZone } from 'luxon';
import type { RestPeriod } from '../../src/wire/types.js';

/** The wire form of every timestamp: milliseconds and the station's UTC offset. */
const WIRE_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSZZ";

export function isValidTimeZone(zone: string): boolean {
  return IANAZone.isValidZone(zone);
}

/** Renders epoch ms in the station's zone, e.g. `2025-06-01T05:30:00.000+02:00` (`+00:00` for UTC). */
export function formatTimestamp(ms: number, zone: string): string {
  return DateTime.fromMillis(ms, { zone }).toFormat(WIRE_FORMAT);
}

/**
 * Puts back a `+` that arrived as a space: the analyzerpi uploader sends
 * `?timestamp=2025-06-01T05:30:00.000+0200` without URL-encoding, so the query
 * parser reads the `+` as a space. Only a space directly between a time of day and
 * an `HH:MM`/`HHMM`/`HH` offset is touched.
 */
function restorePlus(text: string): string {
  return text.replace(/^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?) (\d{2}(?::?\d{2})?)$/, '$1+$2');
}

/**
 * Parses an ISO 8601 timestamp as clients send it: offsets `+HH:MM`, `+HHMM`, `+HH`
 * or `Z`, a space for `T`, a space for `+` (see restorePlus). A timestamp without an
 * offset is read in the station's zone; a date alone is its midnight there.
 * Returns epoch ms, or null when the text is not a timestamp.
 */
export function parseTimestamp(raw: string, zone: string): number | null {
  const text = restorePlus(raw.trim()).replace(/^(\d{4}-\d{2}-\d{2}) (\d{2}:)/, '$1T$2');
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return null;
  const parsed = DateTime.fromISO(text, { zone, setZone: true });
  return parsed.isValid ? parsed.toMillis() : null;
}

/**
 * Parses a `from`/`to` query bound. Both bounds are inclusive; a `to` given as a
 * date alone therefore covers that whole day (up to 23:59:59.999 in the station's zone).
 */
export function parseBound(raw: string, zone: string, bound: 'from' | 'to'): number | null {
  const ms = parseTimestamp(raw, zone);
  if (ms === null || bound === 'from' || !/^\d{4}-\d{2}-\d{2}$/.test(raw.trim())) return ms;
  return DateTime.fromMillis(ms, { zone }).endOf('day').toMillis();
}

/**
 * Start of a REST `period` counted back from now: day = the last 24 hours, week =
 * 7 days, month = one calendar month (in the station's zone); `all` has no start.
 */
export function periodStart(period: RestPeriod, nowMs: number, zone: string): number | undefined {
  const now = DateTime.fromMillis(nowMs, { zone });
  switch (period) {
    case 'day':
      return now.minus({ days: 1 }).toMillis();
    case 'week':
      return now.minus({ weeks: 1 }).toMillis();
    case 'month':
      return now.minus({ months: 1 }).toMillis();
    case 'all':
      return undefined;
  }
}
