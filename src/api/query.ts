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
// Query strings: every documented parameter, in the spec's order (a key not listed is
// never sent).

export const STATS_PARAMS = ['period', 'since', 'mode', 'classification'] as const;
export const SPECIES_LIST_PARAMS = [
  'period',
  'from',
  'to',
  'since',
  'limit',
  'page',
  'sort',
  'order',
  'speciesId',
  'query',
  'mode',
  'locale',
  'classification',
] as const;
export const DETECTION_LIST_PARAMS = ['limit', 'cursor', 'from', 'to', 'speciesId', 'query', 'mode', 'locale', 'classification', 'behavior', 'shortlist'] as const;
export const SOUNDSCAPE_LIST_PARAMS = ['limit', 'cursor', 'from', 'to', 'speciesId', 'detections'] as const;

/** `o`'s values of the listed parameters: a listing's query from options named as the spec names them (the CLI's flags). */
export function pickParams<T extends object, K extends keyof T & string>(o: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;
}

/** The query string of `q`'s listed parameters, in the order listed. */
function queryOf<Q extends object>(q: Q, keys: readonly (keyof Q & string)[]): string {
  return buildQuery(Object.fromEntries(keys.map((k) => [k, q[k] as QueryValue])));
}

export function statsQuery(q: StatsQuery): string {
  return queryOf(q, STATS_PARAMS);
}

export function speciesListQuery(q: SpeciesListQuery): string {
  return queryOf(q, SPECIES_LIST_PARAMS);
}

export function detectionListQuery(q: DetectionListQuery): string {
  return queryOf(q, DETECTION_LIST_PARAMS);
}

export function soundscapeListQuery(q: SoundscapeListQuery): string {
  return queryOf(q, SOUNDSCAPE_LIST_PARAMS);
}
