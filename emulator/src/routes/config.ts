import type { FastifyInstance } from 'fastify';
import type { ConfigUpdateResponse } from '../../../src/wire/types.js';
import { stationOf } from '../auth.js';
import type { EmulatorContext } from '../context.js';
import { readConfigInput } from '../input/config-input.js';
import { bodyOf } from '../input/fields.js';
import { presentStationConfig } from '../present/station.js';

/** POST `/api/v1/stations/{token}/config`: changes name, privacy and minimums; 422 `{success: false}` when invalid. */
export function configRoutes(app: FastifyInstance, context: EmulatorContext): void {
  app.post('/config', (request) => {
    const station = stationOf(request);
    const change = readConfigInput(bodyOf(request.body));
    const updated = context.store.stations.update(station.id, change)!;
    const body: ConfigUpdateResponse = { success: true, station: presentStationConfig(updated, context.store) };
    return body;
  });
}
