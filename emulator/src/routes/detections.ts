import type { FastifyInstance } from 'fastify';
import type { DetectionListResponse, DetectionResponse } from '../../../src/wire/types.js';
import { stationOf } from '../auth.js';
import type { EmulatorContext } from '../context.js';
import { notFound } from '../http-errors.js';
import { bodyOf } from '../input/fields.js';
import { readDetectionInput } from '../input/detection-input.js';
import { ParamReader, queryOf } from '../params.js';
import { DetectionPresenter } from '../present/detection.js';
import { readDetectionFilter } from './filters.js';

/** POST/GET `/api/v1/stations/{token}/detections` and GET `.../detections/{id}` (registered under the station prefix). */
export function detectionRoutes(app: FastifyInstance, context: EmulatorContext): void {
  const { store, events } = context;

  app.post('/detections', async (request, reply) => {
    const station = stationOf(request);
    const row = readDetectionInput(context, station, bodyOf(request.body));
    const detection = store.detections.insert(row, context.now());
    events.emit('detection', detection);
    const body: DetectionResponse = {
      success: true,
      detection: new DetectionPresenter(context, station).render(detection, { withSoundscapeId: true, withShortlist: true }),
    };
    context.faults.lies.detectionStored(store, detection);
    return reply.code(201).send(body);
  });

  app.get('/detections', (request) => {
    const station = stationOf(request);
    const q = new ParamReader(queryOf(request.query));
    const filter = readDetectionFilter(q, station, 'range', context.now(), { behavior: true });
    const limit = q.limit();
    const cursor = q.integer('cursor');
    const withShortlist = q.boolean('shortlist', false);
    q.finish();
    const presenter = new DetectionPresenter(context, station);
    const render = (list: typeof records) => list.map((d) => presenter.render(d, { withShortlist }));
    const records = store.detections.list(filter, { limit, cursor });
    const body: DetectionListResponse = { success: true, detections: render(records) };
    if (records.length === 0) {
      // The service's fallback: when the filters match nothing, the station's latest detections, unfiltered.
      body.unfiltered_detections = render(store.detections.list({ stationId: station.id }, { limit }));
    }
    return body;
  });

  app.get<{ Params: { id: string } }>('/detections/:id', (request) => {
    const station = stationOf(request);
    const id = /^\d+$/.test(request.params.id) ? Number(request.params.id) : undefined;
    const detection = id === undefined ? undefined : store.detections.byId(id);
    if (!detection || detection.stationId !== station.id) throw notFound('Detection not found');
    const body: DetectionResponse = {
      success: true,
      detection: new DetectionPresenter(context, station).render(detection, { withShortlist: true }),
    };
    return body;
  });
}
