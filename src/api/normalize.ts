import type {
  Detection,
  FullSpecies,
  ShortlistEntry,
  Soundscape,
  Species,
  StationConfigRecord,
  StationSpeciesSummary,
} from '../wire/types.js';
import { isObject } from '../wire/json-object.js';

/**
 * Lenient reading of the service's JSON where the real service has drifted from
 * its spec: numbers sent as numeric strings (ids beyond 2^31 from some
 * serializers), `duration` as integer or float, extra fields, missing optional
 * fields. Only numeric fields are touched; everything else (including unknown
 * fields) passes through as it came. Nothing here rejects: the few checks that
 * matter (a created object's id) are made by the client.
 */

/** An id: a non-negative safe integer, or a string of digits within the safe range. */
export function toId(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** A finite number, or a numeric string converted to one. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

type Obj = Record<string, unknown>;

/** Converts the listed fields in place (on a copy) when they convert; leaves them otherwise. */
function withNumbers(o: Obj, ids: readonly string[], numbers: readonly string[] = []): Obj {
  const out: Obj = { ...o };
  for (const k of ids) if (k in out) out[k] = toId(out[k]) ?? out[k];
  for (const k of numbers) if (k in out) out[k] = toNumber(out[k]) ?? out[k];
  return out;
}

function normalizeSpecies(raw: unknown): Species {
  if (!isObject(raw)) return raw as Species;
  return withNumbers(raw, ['id']) as unknown as Species;
}

export function normalizeFullSpecies(raw: unknown): FullSpecies {
  return normalizeSpecies(raw) as FullSpecies;
}

export function normalizeSpeciesSummary(raw: unknown): StationSpeciesSummary {
  if (!isObject(raw)) return raw as StationSpeciesSummary;
  const out = withNumbers(raw, ['id']);
  if (isObject(out.detections)) {
    out.detections = withNumbers(out.detections, [], ['total', 'almostCertain', 'veryLikely', 'uncertain', 'unlikely']);
  }
  return out as unknown as StationSpeciesSummary;
}

export function normalizeDetection(raw: unknown): Detection {
  if (!isObject(raw)) return raw as Detection;
  const out = withNumbers(raw, ['id', 'stationId'], ['lat', 'lon', 'confidence', 'probability', 'score', 'behavior_confidence']);
  if (isObject(out.species)) out.species = normalizeSpecies(out.species);
  if (isObject(out.soundscape)) out.soundscape = withNumbers(out.soundscape, ['id'], ['startTime', 'endTime']);
  if (Array.isArray(out.shortlist)) {
    out.shortlist = out.shortlist.map((e: unknown) =>
      isObject(e) ? (withNumbers(e, ['speciesId'], ['weight']) as unknown as ShortlistEntry) : e,
    );
  }
  return out as unknown as Detection;
}

export function normalizeSoundscape(raw: unknown): Soundscape {
  if (!isObject(raw)) return raw as Soundscape;
  const out = withNumbers(raw, ['id', 'stationId'], ['duration', 'filesize', 'sampleRate']);
  if (Array.isArray(out.detections)) out.detections = out.detections.map(normalizeDetection);
  return out as unknown as Soundscape;
}

export function normalizeStationConfig(raw: unknown): StationConfigRecord {
  if (!isObject(raw)) return raw as StationConfigRecord;
  return withNumbers(raw, ['id'], ['minConfidence', 'minProbability', 'minScore', 'minHumanConfidence']) as unknown as StationConfigRecord;
}
