import { MQTT_STATE } from './mqtt-state.js';
export function markDetectionsPublished(q, ids) {
    const mark = q.stmt(`UPDATE detections SET mqtt_published = ${MQTT_STATE.detectionPublished} WHERE id = ? AND mqtt_published = ${MQTT_STATE.notPublished}`);
    return q.write(() => ids.filter((id) => mark.run(id).changes === 1));
}
export function markUpdatesPublished(q, ids) {
    const mark = q.stmt(`UPDATE detections SET mqtt_published = ${MQTT_STATE.updatePublished} WHERE id = ? AND mqtt_published = ${MQTT_STATE.detectionPublished}`);
    q.write(() => {
        for (const id of ids)
            mark.run(id);
    });
}
