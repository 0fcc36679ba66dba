export { ConfigError } from './errors.js';
export {
  DEFAULT_CONFIG_PATH,
  loadConfig,
  requireToken,
  type ConfigOverrides,
  type LoadConfigOptions,
  type LoadedConfig,
  type TokenSource,
} from './load.js';
export { parseConfig } from './validate.js';
export { redactConfig } from './show.js';
export { REDACTED, redactUrl, urlPassword } from '../wire/redact.js';
export { renderConfigReference } from './reference.js';
export {
  configSchema,
  stationSettingsSchema,
  systemTimeZone,
  type AfterUploadAction,
  type ClockSyncMode,
  type Config,
  type ConfigInput,
  type InputFormat,
  type LogLevel,
  type MqttConfig,
  type MqttRetainPolicy,
  type StationSettings,
} from './schema.js';
export { configKeys, envNameFor, type ConfigKey } from './schema-keys.js';
export { validateStationSettings } from './station-settings.js';
