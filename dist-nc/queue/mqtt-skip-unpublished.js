import { MQTT_STATE } from './mqtt-state.js';
export function skipUnpublished(q) {
    return q.write(() => q.stmt(`UPDATE detections SET mqtt_published = ${MQTT_STATE.updatePublished} WHERE mqtt_published < ${MQTT_STATE.updatePublished}`).run().changes);
}
