import { setTimeout as sleep } from 'node:timers/promises';
import type { MqttClient } from 'mqtt';
import { deadline } from '../system/deadline.js';
import { MqttError } from './errors.js';
import { safeMessage, type BrokerSettings } from './options.js';

/**
 * One connection to the broker, as the publisher and `doctor` use it. The `mqtt`
 * package is loaded here, on the first connect, and only then: a station without MQTT
 * never pays its memory (the Pi Zero has 512 MB).
 *
 * The client never reconnects on its own (`reconnectPeriod: 0`): a lost connection
 * ends this object, and the caller makes a new one after its backoff. So a publish
 * is only ever handed to a connected client and the client's offline queue stays empty.
 */
export interface BrokerConnection {
  /** Resolves once the broker acknowledged the message (QoS 1 and 2), or it was written (QoS 0). */
  publish(topic: string, payload: string, options: { qos: 0 | 1 | 2; retain: boolean }): Promise<void>;
  /** Resolves with the reason when the connection is lost (never rejects). */
  readonly closed: Promise<MqttError>;
  readonly isOpen: boolean;
  /** Disconnects cleanly (the broker does not send the last will). */
  end(): Promise<void>;
}

export async function connectBroker(settings: BrokerSettings): Promise<BrokerConnection> {
  const { connectAsync } = await import('mqtt');
  let client: MqttClient;
  try {
    client = await connectAsync(settings.url, settings.options, false);
  } catch (err) {
    throw new MqttError('ERR_MQTT_BROKER', `cannot connect to the MQTT broker ${settings.displayUrl}: ${safeMessage(err)}`, {
      cause: err,
    });
  }
  let open = true;
  let lastError: unknown = null;
  const closed = new Promise<MqttError>((resolve) => {
    client.on('error', (err) => (lastError = err));
    client.once('close', () => {
      open = false;
      const why = lastError ? safeMessage(lastError) : 'the connection closed';
      resolve(new MqttError('ERR_MQTT_BROKER', `lost the MQTT broker ${settings.displayUrl}: ${why}`));
    });
  });
  return {
    closed,
    get isOpen() {
      return open;
    },
    async publish(topic, payload, options) {
      if (!open) throw new MqttError('ERR_MQTT_PUBLISH', `not connected to the MQTT broker ${settings.displayUrl}`);
      // A close before the acknowledgement fails the publish (the client also fails it,
      // but only once it notices; the race makes it certain).
      const lost = closed.then((err) => Promise.reject(new MqttError('ERR_MQTT_PUBLISH', `${topic}: not acknowledged (${err.message})`)));
      lost.catch(() => {}); // settled by the race, or never looked at once the publish is acknowledged
      // A total limit too: a broker that answers pings but never acknowledges.
      const limit = deadline(settings.publishTimeoutMs);
      const late = new Promise<never>((_, reject) =>
        limit.signal.addEventListener('abort', () => reject(new MqttError('ERR_MQTT_PUBLISH', `${topic}: not acknowledged within ${settings.publishTimeoutMs} ms`))),
      );
      late.catch(() => {});
      try {
        await Promise.race([client.publishAsync(topic, payload, options), lost, late]);
      } catch (err) {
        if (err instanceof MqttError) throw err;
        throw new MqttError('ERR_MQTT_PUBLISH', `${topic}: ${safeMessage(err)}`, { cause: err });
      } finally {
        limit.clear();
      }
    },
    async end() {
      if (!open) {
        client.end(true);
        return;
      }
      // A broker that no longer answers must not hold a stop up.
      await Promise.race([client.endAsync(false), sleep(2_000, undefined, { ref: false })]);
      client.end(true);
    },
  };
}
