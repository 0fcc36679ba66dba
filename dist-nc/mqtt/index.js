export { MqttPublisher, BATCH_SIZE } from './publisher.js';
export { retractFromBroker, clearRetained } from './retract.js';
export { mqttCheck } from './doctor-check.js';
export { discoveryMessages } from './discovery.js';
export { stationTopics } from './topics.js';
export { MqttError } from './errors.js';
