import type { FastifyInstance } from 'fastify';
import { authenticateStation } from '../auth.js';
import type { EmulatorContext } from '../context.js';
import { configRoutes } from './config.js';
import { detectionRoutes } from './detections.js';
import { stationRecordRoute } from './probes.js';
import { soundscapeRoutes } from './soundscapes.js';
import { stationSpeciesRoutes } from './station-species.js';
import { statsRoutes } from './stats.js';

/** Every endpoint under `/api/v1/stations/{token}`, behind station authentication (see auth.ts). */
export async function stationRoutes(app: FastifyInstance, context: EmulatorContext): Promise<void> {
  await app.register(
    (station, _options, done) => {
      station.addHook('preHandler', (request, _reply, next) => {
        const { token } = request.params as { token: string };
        try {
          authenticateStation(context, request, token);
          next();
        } catch (err) {
          next(err as Error);
        }
      });
      stationRecordRoute(station, context);
      detectionRoutes(station, context);
      soundscapeRoutes(station, context);
      statsRoutes(station, context);
      stationSpeciesRoutes(station, context);
      configRoutes(station, context);
      done();
    },
    { prefix: '/api/v1/stations/:token' },
  );
}
