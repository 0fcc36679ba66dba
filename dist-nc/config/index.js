export { ConfigError } from './errors.js';
export { DEFAULT_CONFIG_PATH, loadConfig, requireToken, } from './load.js';
export { parseConfig } from './validate.js';
export { redactConfig } from './show.js';
export { REDACTED, redactUrl, urlPassword } from '../wire/redact.js';
export { renderConfigReference } from './reference.js';
export { AFTER_UPLOAD_ACTIONS, CLOCK_SYNC_MODES, INPUT_FORMATS, LOG_LEVELS, MQTT_RETAIN_POLICIES, MQTT_VERSIONS, defaultMqttClientId, configSchema, stationSettingsSchema, systemTimeZone, } from './schema.js';
export { configKeys, envNameFor } from './schema-keys.js';
export { validateStationSettings } from './station-settings.js';
