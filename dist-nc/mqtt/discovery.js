import { VERSION } from '../version.js';
import { OFFLINE, ONLINE, stationTopics } from './topics.js';
function entitySlug(text) {
    return text
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_+|_+$/g, '');
}
export function discoveryMessages(config) {
    const { mqtt } = config;
    const topics = stationTopics(mqtt);
    const nodeId = mqtt.clientId;
    const device = {
        identifiers: [`station_agent_${nodeId}`],
        name: config.station.settings.name ?? `Station ${nodeId}`,
        manufacturer: 'station-agent',
        model: 'Acoustic monitoring station',
        sw_version: VERSION,
    };
    const common = {
        state_topic: topics.state,
        availability: [{ topic: topics.status, payload_available: ONLINE, payload_not_available: OFFLINE }],
        device,
    };
    const ids = (component, objectId) => ({
        unique_id: `${nodeId}_${objectId}`,
        default_entity_id: `${component}.${entitySlug(`${nodeId}_${objectId}`)}`,
    });
    const entity = (component, objectId, fields) => ({
        topic: `${mqtt.discoveryPrefix}/${component}/${nodeId}/${objectId}/config`,
        payload: { ...ids(component, objectId), ...common, ...fields },
    });
    return [
        entity('sensor', 'last_species', {
            name: 'Last species',
            icon: 'mdi:bird',
            value_template: '{{ value_json.lastSpecies }}',
            json_attributes_topic: topics.state,
            json_attributes_template: '{{ {"scientific_name": value_json.lastScientificName, "detected_at": value_json.lastDetectionAt} | tojson }}',
        }),
        entity('sensor', 'detections_today', {
            name: 'Detections today',
            icon: 'mdi:counter',
            state_class: 'total_increasing',
            value_template: '{{ value_json.detectionsToday }}',
            json_attributes_topic: topics.state,
            json_attributes_template: '{{ value_json.speciesToday | tojson }}',
        }),
        entity('sensor', 'queue_waiting', {
            name: 'Queue waiting',
            icon: 'mdi:tray-full',
            state_class: 'measurement',
            value_template: '{{ value_json.queue.waiting }}',
        }),
        entity('binary_sensor', 'uploads_paused', {
            name: 'Uploads paused',
            device_class: 'problem',
            value_template: "{{ 'ON' if value_json.uploadsPaused else 'OFF' }}",
            json_attributes_topic: topics.state,
            json_attributes_template: '{{ {"reasons": value_json.pausedReasons} | tojson }}',
        }),
        entity('sensor', 'last_upload', {
            name: 'Last upload',
            device_class: 'timestamp',
            value_template: '{{ value_json.lastUploadAt or None }}',
        }),
        {
            topic: `${mqtt.discoveryPrefix}/binary_sensor/${nodeId}/agent/config`,
            payload: {
                ...ids('binary_sensor', 'agent'),
                name: 'Agent',
                device_class: 'connectivity',
                entity_category: 'diagnostic',
                state_topic: topics.status,
                payload_on: ONLINE,
                payload_off: OFFLINE,
                device,
            },
        },
    ];
}
