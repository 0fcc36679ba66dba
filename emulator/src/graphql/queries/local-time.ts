import type { Database } from 'better-sqlite3';
import { IANAZone } from 'luxon';

/**
 * Hour of the day in a station's time zone, for the timeOfDay filters and counts.
 * SQLite knows no IANA zones, so the hour is computed by a function registered on
 * the connection. The zone's UTC offset is looked up once per zone and quarter hour
 * (every offset change in the zone database falls on a quarter hour) and cached, so a
 * scan over many detections does not call into Intl per row.
 */

const QUARTER_HOUR_MS = 15 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const CACHE_LIMIT = 50_000;

const offsets = new Map<string, number>();

function offsetMinutes(ms: number, zone: string): number {
  const key = `${zone}|${Math.floor(ms / QUARTER_HOUR_MS)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = IANAZone.create(zone).offset(ms);
    if (offsets.size >= CACHE_LIMIT) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

/** 0 to 23: the hour of `ms` on a clock in `zone`. */
export function hourOfDay(ms: number, zone: string): number {
  const local = ms + offsetMinutes(ms, zone) * 60_000;
  return Math.floor((((local % DAY_MS) + DAY_MS) % DAY_MS) / HOUR_MS);
}

/** SQL name of the registered function: `gql_hour_of_day(timestamp_ms, timezone)`. */
export const HOUR_OF_DAY_SQL = 'gql_hour_of_day';

const registered = new WeakSet<Database>();

/** Registers the function on a connection (once; the connection is shared with the REST side, which does not use it). */
export function registerLocalTimeFunctions(db: Database): void {
  if (registered.has(db)) return;
  db.function(HOUR_OF_DAY_SQL, { deterministic: true }, (ms: unknown, zone: unknown) => hourOfDay(Number(ms), String(zone)));
  registered.add(db);
}
