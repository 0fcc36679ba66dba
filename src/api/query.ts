/**
 * Query strings of the REST V1 listings. The service takes lists as one
 * comma-separated value (`classification=avian,bat`), booleans as `true`/`false`,
 * and an absent parameter means "the service's default": undefined and null are
 * skipped, never sent as empty strings.
 */

import type { DetectionListQuery, SoundscapeListQuery, SpeciesListQuery, StatsQuery } from '../wire/types.js';

export type QueryValue = string | number | boolean | ReadonlyArray<string | number> | null | undefined;

/**
 * Builds `?a=1&b=x,y` (or `''` when nothing is set), in the order of the keys.
 * Each value (and each list element) is percent-encoded, so an ISO 8601 offset
 * like `+02:00` arrives as `+02:00` rather than as a space.
 *
 * @throws TypeError for a non-finite number, naming the parameter.
 */
export function buildQuery(params: Readonly<Record<string, QueryValue>>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    const encoded = Array.isArray(value)
      ? (value as ReadonlyArray<string | number>).map((v) => encodeScalar(key, v)).join(',')
      : encodeScalar(key, value as string | number | boolean);
    if (Array.isArray(value) && value.length === 0) continue;
    parts.push(`${encodeURIComponent(key)}=${encoded}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function encodeScalar(key: string, value: string | number | boolean): string {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new TypeError(`query parameter "${key}" must be a finite number, got ${String(value)}`);
  }
  return encodeURIComponent(String(value));
}

// ---------------------------------------------------------------------------
// Query strings: every documented parameter, in the spec's order.

export function statsQuery(q: StatsQuery): string {
  return buildQuery({ period: q.period, since: q.since, mode: q.mode, classification: q.classification });
}

export function speciesListQuery(q: SpeciesListQuery): string {
  return buildQuery({
    period: q.period,
    from: q.from,
    to: q.to,
    since: q.since,
    limit: q.limit,
    page: q.page,
    sort: q.sort,
    order: q.order,
    speciesId: q.speciesId,
    query: q.query,
    mode: q.mode,
    locale: q.locale,
    classification: q.classification,
  });
}

export function detectionListQuery(q: DetectionListQuery): string {
  return buildQuery({
    limit: q.limit,
    cursor: q.cursor,
    from: q.from,
    to: q.to,
    speciesId: q.speciesId,
    query: q.query,
    mode: q.mode,
    locale: q.locale,
    classification: q.classification,
    behavior: q.behavior,
    shortlist: q.shortlist,
  });
}

export function soundscapeListQuery(q: SoundscapeListQuery): string {
  return buildQuery({
    limit: q.limit,
    cursor: q.cursor,
    from: q.from,
    to: q.to,
    speciesId: q.speciesId,
    detections: q.detections,
  });
}
