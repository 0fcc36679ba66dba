import type { StationRecord } from '../../store/index.js';
import type { TimeWindow } from '../args/period.js';
import { continentOf, countryOf, PUBLIC_LAT_SQL, PUBLIC_LON_SQL } from '../geo.js';
import { HOUR_OF_DAY_SQL } from './local-time.js';

/** Bounds of one number: Gt/Lt strict, Gte/Lte inclusive (filter group F). */
export interface Range {
  gt?: number;
  lt?: number;
  gte?: number;
  lte?: number;
}

export interface Box {
  ne: { lat: number; lon: number };
  sw: { lat: number; lon: number };
}

/**
 * Everything a GraphQL argument list can ask of detections, already checked. Lists
 * are undefined when not given (an empty list means "no filter" too).
 */
export interface DetectionCriteria {
  window: TimeWindow;
  detectionId?: number;
  speciesIds?: number[];
  classifications?: string[];
  stationIds?: number[];
  stationTypes?: string[];
  continents?: string[];
  countries?: string[];
  recordingModes?: string[];
  score?: Range;
  confidence?: Range;
  probability?: Range;
  /** Hours 0-23 in the station's zone, inclusive; gte > lte wraps past midnight. */
  timeOfDay?: { gte?: number; lte?: number };
  box?: Box;
  vote?: number;
  validSoundscape?: boolean;
  eclipse?: boolean;
  /** Each station's own minimum confidence, probability and score apply (false: overrideStationFilters). */
  stationMinimums: boolean;
}

export interface CompiledCriteria {
  /** `detections d JOIN species s JOIN stations st` */
  from: string;
  where: string;
  params: Record<string, unknown>;
}

export const DETECTION_FROM = 'detections d JOIN species s ON s.id = d.species_id JOIN stations st ON st.id = d.station_id';

/**
 * The local service's reading of "station filters": a station shows publicly only
 * detections meeting its own minimums, the same rule as REST's latestValidDetectionAt.
 */
export const STATION_MINIMUMS_SQL =
  'd.confidence >= st.min_confidence AND COALESCE(d.probability, 0) >= st.min_probability AND d.score >= st.min_score';

class Clauses {
  readonly list: string[] = [];
  readonly params: Record<string, unknown> = {};
  private n = 0;

  param(value: unknown): string {
    const name = `p${this.n++}`;
    this.params[name] = value;
    return `@${name}`;
  }

  add(clause: string): void {
    this.list.push(clause);
  }

  in(column: string, values: readonly (string | number)[]): void {
    this.add(values.length ? `${column} IN (${values.map((v) => this.param(v)).join(', ')})` : '0');
  }

  range(column: string, range: Range | undefined): void {
    if (!range) return;
    if (range.gt !== undefined) this.add(`${column} > ${this.param(range.gt)}`);
    if (range.gte !== undefined) this.add(`${column} >= ${this.param(range.gte)}`);
    if (range.lt !== undefined) this.add(`${column} < ${this.param(range.lt)}`);
    if (range.lte !== undefined) this.add(`${column} <= ${this.param(range.lte)}`);
  }
}

/** Ids of the stations on the given continents and in the given countries (both derived, see geo.ts). */
function stationsWhere(stations: readonly StationRecord[], continents?: string[], countries?: string[]): number[] {
  return stations
    .filter((st) => !continents?.length || continents.includes(continentOf(st.timezone) ?? ''))
    .filter(() => !countries?.length || countries.includes(countryOf() ?? ''))
    .map((st) => st.id);
}

/** Compiles the criteria to one WHERE clause over DETECTION_FROM. `stations` is read only for continents/countries. */
export function compileCriteria(c: DetectionCriteria, stations: () => readonly StationRecord[]): CompiledCriteria {
  const q = new Clauses();
  if (c.window.fromMs !== undefined) q.add(`d.timestamp_ms >= ${q.param(c.window.fromMs)}`);
  if (c.window.toMs !== undefined) q.add(`d.timestamp_ms <= ${q.param(c.window.toMs)}`);
  if (c.detectionId !== undefined) q.add(`d.id = ${q.param(c.detectionId)}`);
  if (c.speciesIds?.length) q.in('d.species_id', c.speciesIds);
  if (c.classifications?.length) q.in('s.classification', c.classifications);
  if (c.stationIds?.length) q.in('d.station_id', c.stationIds);
  if (c.stationTypes?.length) q.in('st.type', c.stationTypes);
  if (c.continents?.length || c.countries?.length) q.in('d.station_id', stationsWhere(stations(), c.continents, c.countries));
  if (c.recordingModes?.length) q.in('d.mode', c.recordingModes);
  q.range('d.score', c.score);
  q.range('d.confidence', c.confidence);
  q.range('d.probability', c.probability);
  if (c.timeOfDay && (c.timeOfDay.gte !== undefined || c.timeOfDay.lte !== undefined)) {
    const hour = `${HOUR_OF_DAY_SQL}(d.timestamp_ms, st.timezone)`;
    const { gte, lte } = c.timeOfDay;
    if (gte !== undefined && lte !== undefined && gte > lte) {
      q.add(`(${hour} >= ${q.param(gte)} OR ${hour} <= ${q.param(lte)})`);
    } else {
      if (gte !== undefined) q.add(`${hour} >= ${q.param(gte)}`);
      if (lte !== undefined) q.add(`${hour} <= ${q.param(lte)}`);
    }
  }
  if (c.box) {
    const { ne, sw } = c.box;
    q.add(`${PUBLIC_LAT_SQL} BETWEEN ${q.param(sw.lat)} AND ${q.param(ne.lat)}`);
    q.add(
      sw.lon <= ne.lon
        ? `${PUBLIC_LON_SQL} BETWEEN ${q.param(sw.lon)} AND ${q.param(ne.lon)}`
        : `(${PUBLIC_LON_SQL} >= ${q.param(sw.lon)} OR ${PUBLIC_LON_SQL} <= ${q.param(ne.lon)})`,
    );
  }
  // The local service stores no votes and no eclipse path: asking for them matches nothing.
  if (c.vote !== undefined) q.add('0');
  if (c.eclipse === true) q.add('0');
  if (c.validSoundscape === true) q.add('EXISTS (SELECT 1 FROM soundscapes c WHERE c.id = d.soundscape_id)');
  if (c.stationMinimums) q.add(STATION_MINIMUMS_SQL);
  return { from: DETECTION_FROM, where: q.list.length ? q.list.join(' AND ') : '1', params: q.params };
}
