export const MQTT_STATE = {
    notPublished: 0,
    detectionPublished: 1,
    updatePublished: 2,
};
export function inOutbox(state, alias = '') {
    const col = `${alias}mqtt_published`;
    return `${col} < ${MQTT_STATE.updatePublished} AND ${col} = ${MQTT_STATE[state]}`;
}
export const UPDATE_DUE_STATES = `('uploaded', 'dropped')`;
