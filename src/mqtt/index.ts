/**
 * MQTT and Home Assistant (docs/MQTT.md). Importing this module does not load the
 * `mqtt` package; the first connect does (connection.ts). The daemon imports this
 * module only when `mqtt.enabled` or `mqtt.url` is set.
 */
export { MqttPublisher, type MqttMessageKind, type MqttObserver, type MqttPublisherOptions, type MqttRuntime } from './publisher.js';
export { retractFromBroker, clearRetained } from './retract.js';
export { discoveryMessages, type DiscoveryMessage } from './discovery.js';
export { stationTopics, type StationTopics, type DetectionPayload, type DetectionUpdatePayload, type StatePayload } from './topics.js';
export { MqttError, type MqttErrorCode } from './errors.js';
