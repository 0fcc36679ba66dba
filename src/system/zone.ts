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
