import { StationAgentError } from '../errors.js';

export type MqttErrorCode =
  /** A file named by the `mqtt` settings (password, CA) cannot be read. */
  | 'ERR_MQTT_CONFIG'
  /** The broker cannot be reached, refused the connection, or dropped it. */
  | 'ERR_MQTT_BROKER'
  /** A publish was not acknowledged (the connection closed first, or the broker refused it). */
  | 'ERR_MQTT_PUBLISH';

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
