import type { Config } from '../config/index.js';
import type { Logger } from '../log/index.js';
import type { Queue } from '../queue/index.js';
import { connectBroker, type BrokerConnection } from './connection.js';
import { brokerSettings, safeMessage } from './options.js';
import { forgetRetained, hasRetained, readPresence } from './presence.js';

/**
 * Removing the station from the broker: an empty retained message at a topic deletes
 * the retained message there, and at a discovery config topic removes the entity from
 * Home Assistant. Topics are forgotten only once the broker acknowledged their removal.
 */
export async function clearRetained(
  conn: BrokerConnection,
  queue: Queue,
  topics: { discovery?: readonly string[]; retained?: readonly string[] },
  qos: 0 | 1 | 2,
): Promise<void> {
  const all = [...(topics.discovery ?? []), ...(topics.retained ?? [])];
  await Promise.all(all.map((topic) => conn.publish(topic, '', { qos, retain: true })));
  forgetRetained(queue, topics);
}

/**
 * At the start of a daemon with `mqtt.enabled: false`: when the station left discovery
 * or retained topics on a broker and `mqtt.url` still says where, they are removed.
 * Without `mqtt.url` a warning says how to remove them. Never throws: a broker that is
 * away only leaves the removal for the next start.
 */
export async function retractFromBroker(config: Config, queue: Queue, log: Logger): Promise<'removed' | 'nothing' | 'no-url' | 'failed'> {
  const presence = readPresence(queue);
  if (!hasRetained(presence)) return 'nothing';
  if (!config.mqtt.url) {
    log.warn(
      `mqtt: the station's Home Assistant entities and retained topics are still on the broker ${presence.broker ?? ''}; set mqtt.url (with mqtt.enabled false) to remove them at the next start`,
    );
    return 'no-url';
  }
  let conn: BrokerConnection | null = null;
  try {
    const settings = await brokerSettings(config.mqtt);
    conn = await connectBroker(settings);
    await clearRetained(conn, queue, { discovery: presence.discoveryTopics, retained: presence.retainedTopics }, config.mqtt.qos);
    log.info({ broker: settings.displayUrl, topics: presence.discoveryTopics.length + presence.retainedTopics.length }, 'mqtt: removed the station from the broker (MQTT is off)');
    return 'removed';
  } catch (err) {
    log.warn(`mqtt: could not remove the station from the broker (tried again at the next start): ${safeMessage(err)}`);
    return 'failed';
  } finally {
    await conn?.end().catch(() => {});
  }
}
