import type { FastifyInstance } from 'fastify';
import type { StationConfigRecord } from '../../../src/wire/types.js';
import { stationOf } from '../auth.js';
import type { EmulatorContext } from '../context.js';
import { presentStationConfig } from '../present/station.js';

/**
 * The connection probes clients send before anything else (an uploader's "test
 * connection" is `HEAD /api/v1`, then `GET /api/v1/stations/{token}`); the real
 * service answers both below 400.
 */
export function probeRoutes(app: FastifyInstance): void {
  // fastify answers HEAD for every GET route (same status and headers, no body).
  app.get('/api/v1', () => ({ success: true, version: 'v1' }));
}

/** GET `/api/v1/stations/{token}`: the station's record, the same fields as the config update's. */
export function stationRecordRoute(app: FastifyInstance, context: EmulatorContext): void {
  app.get('/', (request) => {
    const body: { success: true; station: StationConfigRecord } = {
      success: true,
      station: presentStationConfig(stationOf(request), context.store),
    };
    return body;
  });
}
