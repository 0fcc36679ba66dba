import { z } from 'zod';

/**
 * Home Assistant's MQTT discovery, as its documentation states the required and
 * typed fields (integrations/mqtt: "Discovery messages", the sensor and binary_sensor
 * platforms). Written independently of src/mqtt/discovery.ts so a wrong payload fails.
 */
const device = z.object({
  identifiers: z.array(z.string().min(1)).min(1),
  name: z.string().min(1),
  manufacturer: z.string().min(1),
  model: z.string().min(1),
  sw_version: z.string().min(1),
});
const availability = z.array(z.object({ topic: z.string().min(1), payload_available: z.string(), payload_not_available: z.string() })).min(1);
const topic = z.string().regex(/^[^#+]+$/);
/**
 * Since Home Assistant 2025.10 an entity's id is asked for with `default_entity_id`, a
 * whole entity id whose domain is the entity's component (`sensor.garden_last_species`;
 * an object id is lower-case letters, digits and single `_`, not at either end). The
 * older `object_id` is deprecated and stops working in 2026.4, so it must be absent.
 */
const OBJECT_ID = '(?!_)[0-9a-z_]+(?<!_)';
const base = (component: 'sensor' | 'binary_sensor') =>
  z.object({
    unique_id: z.string().regex(/^[A-Za-z0-9_-]+$/),
    default_entity_id: z.string().regex(new RegExp(`^${component}\\.${OBJECT_ID}$`)),
    object_id: z.never({ error: 'object_id is deprecated (Home Assistant 2025.10): use default_entity_id' }).optional(),
    name: z.string().min(1),
    state_topic: topic,
    device,
  });
const SENSOR_DEVICE_CLASSES = ['timestamp', 'duration', 'date'] as const;
const sensor = base('sensor').extend({
  availability,
  value_template: z.string().includes('value_json'),
  device_class: z.enum(SENSOR_DEVICE_CLASSES).optional(),
  state_class: z.enum(['measurement', 'total', 'total_increasing']).optional(),
});
const binarySensor = base('binary_sensor').extend({
  availability: availability.optional(),
  device_class: z.enum(['problem', 'connectivity']),
});

export interface DiscoveryCheck {
  topic: (nodeId: string) => string;
  schema: z.ZodType;
}

/** The entities the station must announce: `<prefix>/<component>/<node_id>/<object_id>/config`. */
export const HA_DISCOVERY_CHECKS: DiscoveryCheck[] = [
  { topic: (n) => `homeassistant/sensor/${n}/last_species/config`, schema: sensor },
  { topic: (n) => `homeassistant/sensor/${n}/detections_today/config`, schema: sensor },
  { topic: (n) => `homeassistant/sensor/${n}/queue_waiting/config`, schema: sensor },
  { topic: (n) => `homeassistant/sensor/${n}/last_upload/config`, schema: sensor.extend({ device_class: z.literal('timestamp') }) },
  {
    topic: (n) => `homeassistant/binary_sensor/${n}/uploads_paused/config`,
    schema: binarySensor.extend({ availability, value_template: z.string().includes('value_json') }),
  },
  {
    topic: (n) => `homeassistant/binary_sensor/${n}/delivery_mismatch/config`,
    schema: binarySensor.extend({ availability, device_class: z.literal('problem'), value_template: z.string().includes('value_json') }),
  },
  {
    // The availability entity reads the status topic itself (online/offline).
    topic: (n) => `homeassistant/binary_sensor/${n}/agent/config`,
    schema: binarySensor.extend({ device_class: z.literal('connectivity'), payload_on: z.literal('online'), payload_off: z.literal('offline') }),
  },
];
