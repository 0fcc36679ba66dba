import { DateTime } from 'luxon';
import { GraphqlInputError } from '../errors.js';

/** The `InputDuration` argument as it arrives (dates already checked by the ISO8601Date scalar). */
export interface InputDuration {
  count?: number | null;
  unit?: string | null;
  from?: string | null;
  to?: string | null;
}

/** A time window in epoch ms; both bounds inclusive, either may be open. */
export interface TimeWindow {
  fromMs?: number;
  toMs?: number;
}

export const DURATION_UNITS = ['hour', 'day', 'week', 'month', 'year'] as const;
type DurationUnit = (typeof DURATION_UNITS)[number];

/** The default where a `period` is left out: the last 24 hours. */
export const DEFAULT_PERIOD_MS = 24 * 60 * 60 * 1000;

/**
 * The UTC date of the zero time `0001-01-01T00:00:00Z` (after the ISO8601Date scalar):
 * what a Go client sends for a time it leaves unset, so it means "not given".
 */
const ZERO_DATE = '0001-01-01';

function unsetIfZero(date: string | null | undefined): string | null | undefined {
  return date === ZERO_DATE ? null : date;
}

/**
 * Reads a `period` argument:
 * - left out (or null): the last 24 hours, or no window at all with `optional`;
 * - `{count, unit}`: the last `count` units (calendar months and years in UTC);
 *   count defaults to 1, unit to day;
 * - `{from, to}`: whole UTC days, both inclusive; either may be left out. The zero
 *   time (`0001-01-01`) counts as left out, so `{count, unit}` with zero `from`/`to`
 *   (a Go client's unset times) is a relative period.
 * Like the REST periods, a relative window has no upper bound (a station whose clock
 * runs ahead still shows). Mixing the two forms, a count below 1 or an unknown unit is an error naming the argument.
 */
export function readPeriod(
  input: InputDuration | null | undefined,
  nowMs: number,
  options: { argument?: string; optional?: boolean } = {},
): TimeWindow {
  const argument = options.argument ?? 'period';
  if (input === null || input === undefined) return options.optional ? {} : { fromMs: nowMs - DEFAULT_PERIOD_MS };
  input = { ...input, from: unsetIfZero(input.from), to: unsetIfZero(input.to) };
  const relative = input.count != null || input.unit != null;
  const absolute = input.from != null || input.to != null;
  if (relative && absolute) {
    throw new GraphqlInputError(`${argument}: give either count and unit, or from and to, not both`);
  }
  if (absolute) {
    const fromMs = input.from != null ? DateTime.fromISO(input.from, { zone: 'UTC' }).toMillis() : undefined;
    const toMs = input.to != null ? DateTime.fromISO(input.to, { zone: 'UTC' }).endOf('day').toMillis() : undefined;
    if (fromMs !== undefined && toMs !== undefined && fromMs > toMs) {
      throw new GraphqlInputError(`${argument}: from (${input.from}) is after to (${input.to})`);
    }
    return { fromMs, toMs };
  }
  if (!relative) throw new GraphqlInputError(`${argument}: give count and unit (e.g. {count: 7, unit: "day"}) or from/to dates`);
  const count = input.count ?? 1;
  if (count < 1) throw new GraphqlInputError(`${argument}.count must be 1 or more, got ${count}`);
  const unit = (input.unit ?? 'day').trim().toLowerCase();
  if (!(DURATION_UNITS as readonly string[]).includes(unit)) {
    throw new GraphqlInputError(`${argument}.unit must be one of ${DURATION_UNITS.join(', ')}, got ${JSON.stringify(input.unit)}`);
  }
  const from = DateTime.fromMillis(nowMs, { zone: 'UTC' }).minus({ [`${unit as DurationUnit}s`]: count });
  return { fromMs: from.toMillis() };
}
