import type { FastifyInstance } from 'fastify';
import type { SpeciesListResponse, StationSpeciesSummary } from '../../../src/wire/types.js';
import { stationOf } from '../auth.js';
import type { EmulatorContext } from '../context.js';
import { ParamReader, queryOf } from '../params.js';
import { speciesRef } from '../present/species.js';
import type { SpeciesSort } from '../store/index.js';
import { formatTimestamp } from '../time.js';
import { readDetectionFilter } from './filters.js';

const SORTS: readonly SpeciesSort[] = ['top', 'common_name', 'scientific_name'];

/**
 * GET `/api/v1/stations/{token}/species`: the species the station detected, with
 * counts by certainty. Default order: by detection count, descending; by name the
 * default direction is ascending. `limit` (max 100) and `page` (from 1) page it.
 */
export function stationSpeciesRoutes(app: FastifyInstance, context: EmulatorContext): void {
  const { store } = context;
  app.get('/species', (request) => {
    const station = stationOf(request);
    const q = new ParamReader(queryOf(request.query));
    const filter = readDetectionFilter(q, station, 'period-range', context.now());
    const sort = q.oneOf('sort', SORTS, 'top');
    const order = q.oneOf('order', ['asc', 'desc'] as const, sort === 'top' ? 'desc' : 'asc');
    const limit = q.limit();
    const page = q.page();
    q.finish();
    const rows = store.summaries.speciesSummaries(filter, { sort, order, limit, offset: (page - 1) * limit });
    const species = rows.map((row): StationSpeciesSummary => ({
      ...speciesRef(store.species.byId(row.speciesId)!, context.mediaUrl),
      detections: {
        total: row.total,
        almostCertain: row.almostCertain,
        veryLikely: row.veryLikely,
        uncertain: row.uncertain,
        unlikely: row.unlikely,
      },
      latestDetectionAt: formatTimestamp(row.latestMs, station.timezone),
    }));
    const body: SpeciesListResponse = { success: true, species };
    return body;
  });
}
