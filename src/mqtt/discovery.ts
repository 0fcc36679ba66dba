import type { Config } from '../config/index.js';
import { VERSION } from '../version.js';
import { OFFLINE, ONLINE, stationTopics } from './topics.js';

/**
 * Home Assistant MQTT discovery: one retained config message per entity at
 * `<discoveryPrefix>/<component>/<node_id>/<object_id>/config`, all grouped under one
 * device for the station, so the station appears in Home Assistant without YAML. The
 * entities read the retained `<base>/state` JSON and are available while
 * `<base>/status` says `online`. An empty retained payload at the same topic removes
 * an entity (see retract.ts).
 *
 * Each entity names the entity id Home Assistant should give it in `default_entity_id`
 * (`<component>.<node>_<object_id>`, e.g. `sensor.garden_last_species`): the current
 * discovery schema. The older `object_id` (without the domain) was deprecated in Home
 * Assistant 2025.10 and stops working in 2026.4, so it is no longer sent. An entity id
 * is lower-case letters, digits and `_`, so the client id is slugged for it; the topics
 * and `unique_id` keep the client id as it is (existing entities keep their identity).
 *
 * | object_id | component | what |
 * |---|---|---|
 * | `last_species` | sensor | the species of the last detection |
 * | `detections_today` | sensor | detections today; the per-species counts as attributes |
 * | `queue_waiting` | sensor | items waiting to be uploaded |
 * | `uploads_paused` | binary_sensor (problem) | uploads paused; the reasons as attributes |
 * | `last_upload` | sensor (timestamp) | time of the last successful upload |
 * | `delivery_mismatch` | binary_sensor (problem) | the last delivery audit found items missing, altered or foreign; its totals as attributes |
 * | `agent` | binary_sensor (connectivity) | the agent is running and connected |
 */
export interface DiscoveryMessage {
  topic: string;
  /** The config as Home Assistant reads it (abbreviations are not used, for legibility). */
  payload: Record<string, unknown>;
}

type Component = 'sensor' | 'binary_sensor';

/**
 * The object part of an entity id as Home Assistant allows it: lower-case letters,
 * digits and single `_`, not at either end (`Station-Agent-1` → `station_agent_1`).
 */
function entitySlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

export function discoveryMessages(config: Config): DiscoveryMessage[] {
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
  const ids = (component: Component, objectId: string) => ({
    unique_id: `${nodeId}_${objectId}`,
    default_entity_id: `${component}.${entitySlug(`${nodeId}_${objectId}`)}`,
  });
  const entity = (component: Component, objectId: string, fields: Record<string, unknown>): DiscoveryMessage => ({
    topic: `${mqtt.discoveryPrefix}/${component}/${nodeId}/${objectId}/config`,
    payload: { ...ids(component, objectId), ...common, ...fields },
  });
  return [
    entity('sensor', 'last_species', {
      name: 'Last species',
      icon: 'mdi:bird',
      value_template: '{{ value_json.lastSpecies }}',
      json_attributes_topic: topics.state,
      json_attributes_template:
        '{{ {"scientific_name": value_json.lastScientificName, "detected_at": value_json.lastDetectionAt} | tojson }}',
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
    entity('binary_sensor', 'delivery_mismatch', {
      name: 'Delivery mismatch',
      device_class: 'problem',
      value_template: "{{ 'ON' if value_json.deliveryMismatch else 'OFF' }}",
      json_attributes_topic: topics.state,
      json_attributes_template: '{{ (value_json.delivery or {}) | tojson }}',
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
