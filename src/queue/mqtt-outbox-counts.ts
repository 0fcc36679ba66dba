import type { Queue } from './db.js';
import { UPDATE_DUE_STATES, inOutbox } from './mqtt-state.js';

/** Detection messages and updates still to be published (mqtt-state.ts). */
export interface OutboxCounts {
  detections: number;
  updates: number;
}

/** Two index ranges of `detections_mqtt`: cheap on any history (status and the state topic read it). */
export function outboxCounts(q: Queue): OutboxCounts {
  return q.read(() => {
    const detections = (q.stmt(`SELECT COUNT(*) AS n FROM detections INDEXED BY detections_mqtt WHERE ${inOutbox('notPublished')}`).get() as { n: number }).n;
    const updates = (
      q
        .stmt(`SELECT COUNT(*) AS n FROM detections INDEXED BY detections_mqtt WHERE ${inOutbox('detectionPublished')} AND state IN ${UPDATE_DUE_STATES}`)
        .get() as { n: number }
    ).n;
    return { detections, updates };
  });
}
