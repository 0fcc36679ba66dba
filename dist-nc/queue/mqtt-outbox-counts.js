import { UPDATE_DUE_STATES, inOutbox } from './mqtt-state.js';
export function outboxCounts(q) {
    return q.read(() => {
        const detections = q.stmt(`SELECT COUNT(*) AS n FROM detections INDEXED BY detections_mqtt WHERE ${inOutbox('notPublished')}`).get().n;
        const updates = q
            .stmt(`SELECT COUNT(*) AS n FROM detections INDEXED BY detections_mqtt WHERE ${inOutbox('detectionPublished')} AND state IN ${UPDATE_DUE_STATES}`)
            .get().n;
        return { detections, updates };
    });
}
