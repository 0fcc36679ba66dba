import { StationAgentError, type CodeOf } from '../errors.js';

/** `ERR_MQTT_CONFIG`, `ERR_MQTT_BROKER`, `ERR_MQTT_PUBLISH`: their meanings are the register's (src/errors.ts). */
export type MqttErrorCode = CodeOf<'MqttError'>;

/** Publishing to the MQTT broker failed. Messages never hold the broker password. */
export class MqttError extends StationAgentError {
  constructor(
    readonly code: MqttErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
