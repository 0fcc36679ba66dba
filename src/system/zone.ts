import { readlinkSync } from 'node:fs';
import type { Zone } from 'luxon';
import { luxon } from './luxon.js';

/** A zone's offset from UTC in minutes at an instant (east positive, as luxon's `Zone.offset`). */
export type ZoneOffset = (ms: number) => number;

const UTC_NAMES = new Set(['utc', 'gmt', 'etc/utc', 'etc/gmt']);
const utcOffset: ZoneOffset = () => 0;
// `|| 0`: never -0, which the negation gives where the offset is 0.
const localOffset: ZoneOffset = (ms) => -new Date(ms).getTimezoneOffset() || 0;

/**
 * The offset of a configured time zone (`station.timezone`, an AudioMoth zone), by the
 * cheapest way that gives the same answer:
 * - UTC (`UTC`, `GMT`, `Etc/UTC`, `Etc/GMT`): 0;
 * - the system's own zone ({@link systemZoneName}), which `station.timezone` defaults to:
 *   JavaScript's local time, which V8 computes from the same ICU time zone rules Intl uses.
 *   A station whose zone is the system's then never builds an `Intl.DateTimeFormat`, which
 *   maps some 7 MB of ICU's data into the process, nor loads luxon (1.4 MB): on this kind of
 *   machine a daemon's resident memory is about 10 MB smaller for it;
 * - any other zone, and a fixed offset such as `UTC+2`: luxon (through Intl).
 *
 * Decided at each call (the system's zone may change with `TZ`); callers keep what they
 * compute from it per hour (recording-time.ts). Throws RangeError naming a zone luxon does
 * not know.
 */
export function zoneOffset(zone: string): ZoneOffset {
  if (UTC_NAMES.has(zone.toLowerCase())) return utcOffset;
  if (zone === systemZoneName()) return localOffset;
  const z = luxonZone(zone);
  return (ms) => z.offset(ms);
}

/** The zone as luxon's (IANA, UTC or a fixed offset such as `UTC+2`); RangeError naming a zone luxon does not know. */
export function luxonZone(zone: string): Zone {
  const z = luxon().Info.normalizeZone(zone);
  if (!z.isValid) throw new RangeError(`unknown time zone "${zone}" (expected an IANA name such as "Europe/Berlin")`);
  return z;
}

let linked: { name: string | null } | undefined;

/**
 * The zone JavaScript's local time is in, as an IANA name, where it can be told without
 * Intl: `TZ` when set (a leading `:` dropped), else the zone `/etc/localtime` links to
 * (`/usr/share/zoneinfo/Europe/Berlin`, as Debian and Raspberry Pi OS set it; `posix/`
 * names are the same zones), the way ICU finds the host's zone. null when neither says
 * (a copied `/etc/localtime`, a POSIX rule in `TZ`): the caller then asks luxon.
 */
export function systemZoneName(): string | null {
  const tz = process.env.TZ;
  if (tz !== undefined && tz !== '') return tz.startsWith(':') ? tz.slice(1) : tz;
  linked ??= { name: zoneLinkedFrom('/etc/localtime') };
  return linked.name;
}

function zoneLinkedFrom(file: string): string | null {
  try {
    return /\/zoneinfo\/(?:posix\/)?([^/].*)$/.exec(readlinkSync(file))?.[1] ?? null;
  } catch {
    return null;
  }
}

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * The instant of an ISO 8601 date-time with an offset (`2024-05-01T06:00:00.000+02:00`,
 * `+0200`, `+02`, `Z`), in ms; NaN for anything else, an offset-less time included. The
 * one reading of such a time: a result file's own start (the JSON parsers check it with
 * this, recording-time.ts takes it) and a queued detection's timestamp (the data budget's
 * and MQTT's local day), without luxon, whose DateTime asks Intl for the system's locale.
 */
export function isoWithOffsetMs(value: string): number {
  if (!ISO_WITH_OFFSET.test(value)) return Number.NaN;
  // `+0200` and `+02` as `+02:00`, which every Date.parse reads.
  return Date.parse(value.replace(/([+-]\d{2})(\d{2})?$/, (_, h: string, m?: string) => `${h}:${m ?? '00'}`));
}

/** The wall-clock fields of a local time (month 1-12). */
export interface LocalFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond?: number;
}

const DAY_MS = 86_400_000;

/**
 * A wall-clock time in an IANA zone, with the "offset before the change" rule for DST gaps
 * and overlaps. Undefined for impossible fields (month 13, 31 April, 25:00).
 */
export function localTimeInZone(fields: LocalFields, zone: string): Date | undefined {
  const offset = zoneOffset(zone);
  const wall = wallMillis(fields);
  if (wall === undefined) return undefined;
  // The offsets a day before and after bracket any single transition.
  const before = offset(wall - DAY_MS);
  const after = offset(wall + DAY_MS);
  const candidates = [wall - before * 60_000, wall - after * 60_000].filter(
    (instant, i) => offset(instant) === (i === 0 ? before : after),
  );
  // Overlap: both are real, the earlier instant is the one at the offset before the change.
  // Gap: neither is real; read the time at the offset before the change.
  const instant = candidates.length > 0 ? Math.min(...candidates) : wall - before * 60_000;
  return new Date(instant);
}

/** The wall-clock fields in `zone` at an instant: the inverse of {@link localTimeInZone}. */
export function localFieldsAt(ms: number, zone: string): LocalFields {
  const wall = new Date(ms + zoneOffset(zone)(ms) * 60_000);
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
    millisecond: wall.getUTCMilliseconds(),
  };
}

/** Midnight of the calendar date `days` after the date of `fields` (month and year ends carried). */
export function midnightAfter(fields: Pick<LocalFields, 'year' | 'month' | 'day'>, days: number): LocalFields {
  const d = new Date(0);
  d.setUTCFullYear(fields.year, fields.month - 1, fields.day + days);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: 0, minute: 0, second: 0 };
}

/** `YYYY-MM-DD` of the fields' date (four-digit years). */
export function isoDate(fields: Pick<LocalFields, 'year' | 'month' | 'day'>): string {
  return `${String(fields.year).padStart(4, '0')}-${String(fields.month).padStart(2, '0')}-${String(fields.day).padStart(2, '0')}`;
}

/**
 * The wall-clock fields read as UTC, in ms; undefined for impossible fields, as luxon
 * judges them (month 13, 31 April, 25:00; 24:00:00.000 is the next midnight). Plain `Date`
 * arithmetic: luxon's `DateTime.fromObject` asks Intl for the system locale, and the first
 * Intl.DateTimeFormat loads some 8 MB of ICU (6.4 MB of it file pages of the node binary)
 * into a daemon that reads only UTC or fixed-offset names.
 */
export function wallMillis(f: LocalFields): number | undefined {
  const ms = f.millisecond ?? 0;
  const all = [f.year, f.month, f.day, f.hour, f.minute, f.second, ms];
  if (!all.every(Number.isInteger)) return undefined;
  if (f.month < 1 || f.month > 12 || f.day < 1 || f.day > daysInMonth(f.year, f.month)) return undefined;
  const nextMidnight = f.hour === 24 && f.minute === 0 && f.second === 0 && ms === 0;
  if ((f.hour < 0 || f.hour > 23) && !nextMidnight) return undefined;
  if (f.minute < 0 || f.minute > 59 || f.second < 0 || f.second > 59 || ms < 0 || ms > 999) return undefined;
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  const d = new Date(0);
  d.setUTCFullYear(f.year, f.month - 1, f.day);
  d.setUTCHours(f.hour, f.minute, f.second, ms);
  return d.getTime();
}

function daysInMonth(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
}
