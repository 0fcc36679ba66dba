import type { FastifyInstance } from 'fastify';
import type { StatsResponse } from '../../../src/wire/types.js';
import { stationOf } from '../auth.js';
import type { EmulatorContext } from '../context.js';
import { ParamReader, queryOf } from '../params.js';
import { readDetectionFilter } from './filters.js';

/** GET `/api/v1/stations/{token}/stats`: detection and species counts over `period` (default day) or `since`. */
export function statsRoutes(app: FastifyInstance, context: EmulatorContext): void {
  app.get('/stats', (request) => {
    const station = stationOf(request);
    const q = new ParamReader(queryOf(request.query));
    const filter = readDetectionFilter(q, station, 'period-since', context.now(), { species: false });
    q.finish();
    const counts = context.store.summaries.counts(filter);
    const body: StatsResponse = { success: true, detections: counts.detections, species: counts.species };
    return body;
  });
}
