import type { Queue } from './db.js';
import { MQTT_STATE } from './mqtt-state.js';

/**
 * Every row of the outbox to `updatePublished`: publishing starts with the detections
 * queued from now on, and what was queued while MQTT was off is not replayed (months of
 * history would flood the broker and Home Assistant). Returns how many rows were skipped.
 */
export function skipUnpublished(q: Queue): number {
  return q.write(
    () => q.stmt(`UPDATE detections SET mqtt_published = ${MQTT_STATE.updatePublished} WHERE mqtt_published < ${MQTT_STATE.updatePublished}`).run().changes,
  );
}
