import type { GqlContext } from '../context.js';
import { compileCriteria, type DetectionCriteria } from './criteria.js';
import { HOUR_OF_DAY_SQL } from './local-time.js';

/** Aggregates behind counts, topSpecies, the binned counts and the station/species summaries. */

export interface SpeciesCountRow {
  speciesId: number;
  count: number;
  averageProbability: number | null;
  almostCertain: number;
  veryLikely: number;
  uncertain: number;
  unlikely: number;
}

export interface Totals {
  detections: number;
  species: number;
  stations: number;
}

/** One bin of one species: `key` is an hour of the day, or the epoch ms where a time bin starts. */
export interface BinRow {
  speciesId: number;
  key: number;
  count: number;
}

export interface BinnedSpecies {
  speciesId: number;
  count: number;
  bins: { key: number; count: number }[];
}

export const BIN_INTERVALS = { hour: 3_600_000, day: 86_400_000 } as const;
export type BinInterval = keyof typeof BIN_INTERVALS;

function run<Row>(ctx: GqlContext, criteria: DetectionCriteria, select: (from: string, where: string) => string): Row[] {
  const { from, where, params } = compileCriteria(criteria, ctx.allStations);
  return ctx.emulator.store.db.prepare<[Record<string, unknown>], Row>(select(from, where)).all(params);
}

export function totals(ctx: GqlContext, criteria: DetectionCriteria): Totals {
  return run<Totals>(
    ctx,
    criteria,
    (from, where) =>
      `SELECT COUNT(*) AS detections, COUNT(DISTINCT d.species_id) AS species, COUNT(DISTINCT d.station_id) AS stations
       FROM ${from} WHERE ${where}`,
  )[0];
}

/** Stations with matching detections, per station type (by type name). */
export function stationsByType(ctx: GqlContext, criteria: DetectionCriteria): { type: string; count: number }[] {
  return run(
    ctx,
    criteria,
    (from, where) =>
      `SELECT st.type AS type, COUNT(DISTINCT d.station_id) AS count FROM ${from} WHERE ${where} GROUP BY st.type ORDER BY st.type`,
  );
}

/** Per species: detections, average probability and certainty breakdown; most detections first, ties by species id. */
export function speciesCounts(ctx: GqlContext, criteria: DetectionCriteria, page: { limit: number; offset: number }): SpeciesCountRow[] {
  const { from, where, params } = compileCriteria(criteria, ctx.allStations);
  return ctx.emulator.store.db
    .prepare<[Record<string, unknown>], SpeciesCountRow>(
      `SELECT d.species_id AS speciesId, COUNT(*) AS count, AVG(d.probability) AS averageProbability,
              SUM(d.certainty = 'almost_certain') AS almostCertain, SUM(d.certainty = 'very_likely') AS veryLikely,
              SUM(d.certainty = 'uncertain') AS uncertain, SUM(d.certainty = 'unlikely') AS unlikely
       FROM ${from} WHERE ${where}
       GROUP BY d.species_id ORDER BY count DESC, d.species_id ASC LIMIT @limit OFFSET @offset`,
    )
    .all({ ...params, limit: page.limit, offset: page.offset });
}

/** Per station: detections; most first, ties by station id. */
export function stationCounts(ctx: GqlContext, criteria: DetectionCriteria, limit: number): { stationId: number; count: number }[] {
  const { from, where, params } = compileCriteria(criteria, ctx.allStations);
  return ctx.emulator.store.db
    .prepare<[Record<string, unknown>], { stationId: number; count: number }>(
      `SELECT d.station_id AS stationId, COUNT(*) AS count FROM ${from} WHERE ${where}
       GROUP BY d.station_id ORDER BY count DESC, d.station_id ASC LIMIT @limit`,
    )
    .all({ ...params, limit });
}

/** Groups bin rows by species: species with the most detections first (ties by id), bins in key order. */
export function groupBins(rows: readonly BinRow[]): BinnedSpecies[] {
  const bySpecies = new Map<number, BinnedSpecies>();
  for (const row of rows) {
    let entry = bySpecies.get(row.speciesId);
    if (!entry) bySpecies.set(row.speciesId, (entry = { speciesId: row.speciesId, count: 0, bins: [] }));
    entry.count += row.count;
    entry.bins.push({ key: row.key, count: row.count });
  }
  for (const entry of bySpecies.values()) entry.bins.sort((a, b) => a.key - b.key);
  return [...bySpecies.values()].sort((a, b) => b.count - a.count || a.speciesId - b.speciesId);
}

/** Detections per species and hour of the day in the station's time zone. */
export function timeOfDayBins(ctx: GqlContext, criteria: DetectionCriteria): BinnedSpecies[] {
  return groupBins(
    run<BinRow>(
      ctx,
      criteria,
      (from, where) =>
        `SELECT d.species_id AS speciesId, ${HOUR_OF_DAY_SQL}(d.timestamp_ms, st.timezone) AS key, COUNT(*) AS count
         FROM ${from} WHERE ${where} GROUP BY speciesId, key`,
    ),
  );
}

/** Detections per species and UTC hour or day; `key` is the bin's start in epoch ms. */
export function timeBins(ctx: GqlContext, criteria: DetectionCriteria, interval: BinInterval): BinnedSpecies[] {
  const width = BIN_INTERVALS[interval];
  return groupBins(
    run<BinRow>(
      ctx,
      criteria,
      (from, where) =>
        `SELECT d.species_id AS speciesId, (d.timestamp_ms / ${width}) * ${width} AS key, COUNT(*) AS count
         FROM ${from} WHERE ${where} GROUP BY speciesId, key`,
    ),
  );
}

export interface DaySummary {
  /** `YYYY-MM-DD` (UTC) */
  date: string;
  dayOfYear: number;
  total: number;
  counts: { speciesId: number; count: number }[];
}

/** Detections per UTC day (oldest first), each with its species, most detections first. */
export function dailySummaries(ctx: GqlContext, criteria: DetectionCriteria): DaySummary[] {
  const rows = run<{ date: string; dayOfYear: number; speciesId: number; count: number }>(
    ctx,
    criteria,
    (from, where) =>
      `SELECT date(d.timestamp_ms / 1000, 'unixepoch') AS date,
              CAST(strftime('%j', d.timestamp_ms / 1000, 'unixepoch') AS INTEGER) AS dayOfYear,
              d.species_id AS speciesId, COUNT(*) AS count
       FROM ${from} WHERE ${where}
       GROUP BY date, speciesId ORDER BY date ASC, count DESC, speciesId ASC`,
  );
  const days: DaySummary[] = [];
  for (const row of rows) {
    let day = days.at(-1);
    if (day?.date !== row.date) days.push((day = { date: row.date, dayOfYear: row.dayOfYear, total: 0, counts: [] }));
    day.total += row.count;
    day.counts.push({ speciesId: row.speciesId, count: row.count });
  }
  return days;
}
