import { likePattern } from './species.js';

/**
 * The filters the REST listings share (detections, soundscapes by species, stats,
 * station species). Compiled to one WHERE clause over `detections d JOIN species s`.
 */
export interface DetectionFilter {
  stationId: number;
  /** Inclusive lower bound, epoch ms. */
  fromMs?: number;
  /** Inclusive upper bound, epoch ms. */
  toMs?: number;
  speciesId?: number;
  /** Substring of the common or scientific name; ignored when `speciesId` is given. */
  query?: string;
  modes?: readonly string[];
  classifications?: readonly string[];
  /** Bat behavior keys; the caller expands aliases (`bat_approach` also matches `bat_chase`). */
  behaviorKeys?: readonly string[];
}

export interface CompiledFilter {
  where: string;
  params: Record<string, unknown>;
}

function inList(column: string, name: string, values: readonly string[], params: Record<string, unknown>): string {
  const names = values.map((value, i) => {
    params[`${name}${i}`] = value;
    return `@${name}${i}`;
  });
  return `${column} IN (${names.join(', ')})`;
}

export function compileDetectionFilter(filter: DetectionFilter): CompiledFilter {
  const clauses = ['d.station_id = @stationId'];
  const params: Record<string, unknown> = { stationId: filter.stationId };
  if (filter.fromMs !== undefined) {
    clauses.push('d.timestamp_ms >= @fromMs');
    params.fromMs = filter.fromMs;
  }
  if (filter.toMs !== undefined) {
    clauses.push('d.timestamp_ms <= @toMs');
    params.toMs = filter.toMs;
  }
  if (filter.speciesId !== undefined) {
    clauses.push('d.species_id = @speciesId');
    params.speciesId = filter.speciesId;
  } else if (filter.query !== undefined && filter.query.trim() !== '') {
    clauses.push(`(s.common_name LIKE @query ESCAPE '\\' OR s.scientific_name LIKE @query ESCAPE '\\')`);
    params.query = likePattern(filter.query.trim());
  }
  if (filter.modes?.length) clauses.push(inList('d.mode', 'mode', filter.modes, params));
  if (filter.classifications?.length) {
    clauses.push(inList('s.classification', 'classification', filter.classifications, params));
  }
  if (filter.behaviorKeys?.length) clauses.push(inList('d.behavior_key', 'behavior', filter.behaviorKeys, params));
  return { where: clauses.join(' AND '), params };
}
