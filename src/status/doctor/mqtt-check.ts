import type { Config } from '../../config/index.js';
import { result, type CheckResult } from './types.js';
import { connectBroker, type BrokerConnection } from '../../mqtt/connection.js';
import { brokerSettings, safeMessage } from '../../mqtt/options.js';
import { stationTopics } from '../../mqtt/topics.js';
import { redactUrl } from '../../wire/redact.js';

/**
 * `station-agent doctor`'s MQTT check (when `mqtt.enabled`): connect and
 * authenticate, then publish a test message to `<base>/doctor` and wait for the
 * broker's acknowledgement. The broker password never appears in what it reports.
 */
export async function mqttCheck(config: Config, timeoutMs: number): Promise<CheckResult> {
  const title = 'MQTT broker';
  if (!config.mqtt.enabled) return result('mqtt', title, 'skip', 'mqtt.enabled is false');
  let display = config.mqtt.url ? redactUrl(config.mqtt.url) : '';
  let conn: BrokerConnection | null = null;
  let stage = 'read the settings';
  try {
    const settings = await brokerSettings(config.mqtt, { connectTimeoutMs: timeoutMs });
    display = settings.displayUrl;
    stage = 'connect';
    conn = await connectBroker(settings);
    stage = 'publish';
    const topic = stationTopics(config.mqtt).doctor;
    const started = Date.now();
    await Promise.race([
      conn.publish(topic, JSON.stringify({ test: true, at: new Date().toISOString() }), { qos: 1, retain: false }),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no acknowledgement within ${timeoutMs} ms`)), timeoutMs).unref()),
    ]);
    const who = config.mqtt.username ? ` as ${config.mqtt.username}` : '';
    return result('mqtt', title, 'pass', `${display}: connected${who}, test message to ${topic} acknowledged in ${Date.now() - started} ms`, null, {
      broker: display,
      topic,
    });
  } catch (err) {
    const message = safeMessage(err);
    return result('mqtt', title, 'fail', `${display}: cannot ${stage}: ${message}`, hint(message), { broker: display });
  } finally {
    await conn?.end().catch(() => {});
  }
}

function hint(message: string): string {
  if (/not authori[sz]ed|bad user ?name or password|authenticat/i.test(message)) {
    return 'check mqtt.username and the password in mqtt.passwordFile against the broker\'s users';
  }
  if (/passwordFile|caFile/.test(message)) return 'fix the file named (it must be readable by the agent\'s user)';
  return 'check mqtt.url (scheme, host, port), that the broker runs, and the network; mosquitto_sub -h HOST -t \'#\' -v tests the broker alone';
}
