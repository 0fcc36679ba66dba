/**
 * What the MQTT broker has been told of each detection: the column
 * `detections.mqtt_published` (migration 4), a second small state machine beside the
 * upload states, kept in the queue so that publishing survives restarts and broker
 * outages without a buffer in memory.
 *
 * | state | value | meaning |
 * |---|---:|---|
 * | `notPublished` | 0 | queued; the detection message is still to be published |
 * | `detectionPublished` | 1 | the detection message was acknowledged; the update waits for the upload (or drop) |
 * | `updatePublished` | 2 | the update was acknowledged too (or the row predates MQTT, or was skipped): nothing more to say |
 *
 * Rows move forward only (0 -> 1 -> 2, or 0/1 -> 2 when skipped), in batches, each batch
 * in one transaction after the broker acknowledged all of its messages. The partial
 * index `detections_mqtt` holds the rows below `updatePublished` only: the outbox is
 * the queue's own rows, nothing more. The operations are `mqtt-*.ts` beside this file.
 */
export const MQTT_STATE = {
  notPublished: 0,
  detectionPublished: 1,
  updatePublished: 2,
} as const;

export type MqttState = keyof typeof MQTT_STATE;

/** The rows of the partial index `detections_mqtt` in `state` (the index's own condition first, so SQLite uses it). */
export function inOutbox(state: Exclude<MqttState, 'updatePublished'>, alias = ''): string {
  const col = `${alias}mqtt_published`;
  return `${col} < ${MQTT_STATE.updatePublished} AND ${col} = ${MQTT_STATE[state]}`;
}

/** Upload states after which a published detection gets its update. */
export const UPDATE_DUE_STATES = `('uploaded', 'dropped')`;
