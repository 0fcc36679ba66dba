export const ONLINE = 'online';
export const OFFLINE = 'offline';
export function stationTopics(mqtt) {
    const base = `${mqtt.topicPrefix}/${mqtt.clientId}`;
    return {
        base,
        status: `${base}/status`,
        state: `${base}/state`,
        detection: `${base}/detection`,
        detectionUpdate: `${base}/detection/update`,
        doctor: `${base}/doctor`,
    };
}
export function retainFor(mqtt, kind) {
    if (mqtt.retain === 'all')
        return true;
    return mqtt.retain === 'state' && kind === 'state';
}
export function stationRef(config) {
    return {
        id: config.mqtt.clientId,
        name: config.station.settings.name ?? null,
        latitude: config.station.latitude,
        longitude: config.station.longitude,
    };
}
