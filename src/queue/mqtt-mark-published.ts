import type { Queue } from './db.js';
import { MQTT_STATE } from './mqtt-state.js';

/**
 * `notPublished -> detectionPublished` for the detections the broker acknowledged, in
 * the caller's transaction (the MQTT publisher counts them into its day's tally in the
 * same one). Returns the ids that moved: a row moved already is not counted twice.
 */
export function markDetectionsPublished(q: Queue, ids: readonly number[]): number[] {
  const mark = q.stmt(`UPDATE detections SET mqtt_published = ${MQTT_STATE.detectionPublished} WHERE id = ? AND mqtt_published = ${MQTT_STATE.notPublished}`);
  return q.write(() => ids.filter((id) => mark.run(id).changes === 1));
}

/** `detectionPublished -> updatePublished` for the updates the broker acknowledged. */
export function markUpdatesPublished(q: Queue, ids: readonly number[]): void {
  const mark = q.stmt(`UPDATE detections SET mqtt_published = ${MQTT_STATE.updatePublished} WHERE id = ? AND mqtt_published = ${MQTT_STATE.detectionPublished}`);
  q.write(() => {
    for (const id of ids) mark.run(id);
  });
}
