import type { FastifyInstance } from 'fastify';
import type { DetectionResponse } from '../../../src/wire/types.js';
import type { EmulatorContext } from '../context.js';
import { notFound } from '../http-errors.js';
import { DetectionPresenter } from '../present/detection.js';

/**
 * Detections recorded before this instant are not served by the global lookup. The
 * local service reads "recorded" as the detection's own timestamp (the start of the
 * detection), not the time it was posted.
 */
export const GLOBAL_LOOKUP_SINCE_MS = Date.UTC(2025, 4, 1);

/** GET `/api/v1/detections/{id}`: no authentication; 404 `{success: false, message}` otherwise, and for an inactive station's detection. */
export function globalDetectionRoutes(app: FastifyInstance, context: EmulatorContext): void {
  const { store } = context;
  app.get<{ Params: { id: string } }>('/api/v1/detections/:id', (request) => {
    const id = /^\d+$/.test(request.params.id) ? Number(request.params.id) : undefined;
    const detection = id === undefined ? undefined : store.detections.byId(id);
    if (!detection) throw notFound('Detection not found');
    if (detection.timestampMs < GLOBAL_LOOKUP_SINCE_MS) {
      throw notFound('Detection not found: detections recorded before May 2025 are served by the station endpoint only');
    }
    const station = store.stations.byId(detection.stationId)!;
    // An inactive station is not public: its token gets "Access denied", its detections are not served here.
    if (!station.active) throw notFound('Detection not found');
    const body: DetectionResponse = {
      success: true,
      detection: new DetectionPresenter(context, station).render(detection, { withShortlist: true }),
    };
    return body;
  });
}
