import type { Database } from 'better-sqlite3';
import { compileDetectionFilter, type DetectionFilter } from './detection-filter.js';

/** Aggregates behind the stats and station species endpoints. */

export interface StationCounts {
  detections: number;
  species: number;
}

export interface SpeciesSummaryRow {
  speciesId: number;
  total: number;
  almostCertain: number;
  veryLikely: number;
  uncertain: number;
  unlikely: number;
  latestMs: number;
}

export type SpeciesSort = 'top' | 'common_name' | 'scientific_name';

export interface SpeciesSummaryPage {
  sort: SpeciesSort;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

const ORDER_COLUMNS: Record<SpeciesSort, string> = {
  top: 'total',
  common_name: 's.common_name COLLATE NOCASE',
  scientific_name: 's.scientific_name COLLATE NOCASE',
};

export class SummaryQueries {
  constructor(private readonly db: Database) {}

  counts(filter: DetectionFilter): StationCounts {
    const { where, params } = compileDetectionFilter(filter);
    const row = this.db
      .prepare<[Record<string, unknown>], { detections: number; species: number }>(
        `SELECT COUNT(*) AS detections, COUNT(DISTINCT d.species_id) AS species
         FROM detections d JOIN species s ON s.id = d.species_id WHERE ${where}`,
      )
      .get(params)!;
    return { detections: row.detections, species: row.species };
  }

  /** Per-species counts by certainty; ties of the primary order fall back to the newest detection, then the id. */
  speciesSummaries(filter: DetectionFilter, page: SpeciesSummaryPage): SpeciesSummaryRow[] {
    const { where, params } = compileDetectionFilter(filter);
    const direction = page.order === 'asc' ? 'ASC' : 'DESC';
    return this.db
      .prepare<[Record<string, unknown>], SpeciesSummaryRow>(
        `SELECT d.species_id AS speciesId,
                COUNT(*) AS total,
                SUM(d.certainty = 'almost_certain') AS almostCertain,
                SUM(d.certainty = 'very_likely') AS veryLikely,
                SUM(d.certainty = 'uncertain') AS uncertain,
                SUM(d.certainty = 'unlikely') AS unlikely,
                MAX(d.timestamp_ms) AS latestMs
         FROM detections d JOIN species s ON s.id = d.species_id
         WHERE ${where}
         GROUP BY d.species_id
         ORDER BY ${ORDER_COLUMNS[page.sort]} ${direction}, latestMs DESC, d.species_id ASC
         LIMIT @limit OFFSET @offset`,
      )
      .all({ ...params, limit: page.limit, offset: page.offset });
  }
}
