import { connectBroker } from './connection.js';
import { brokerSettings, safeMessage } from './options.js';
import { forgetRetained, hasRetained, readPresence } from './presence.js';
export async function clearRetained(conn, queue, topics, qos) {
    const all = [...(topics.discovery ?? []), ...(topics.retained ?? [])];
    await Promise.all(all.map((topic) => conn.publish(topic, '', { qos, retain: true })));
    forgetRetained(queue, topics);
}
export async function retractFromBroker(config, queue, log) {
    const presence = readPresence(queue);
    if (!hasRetained(presence))
        return 'nothing';
    if (!config.mqtt.url) {
        log.warn(`mqtt: the station's Home Assistant entities and retained topics are still on the broker ${presence.broker ?? ''}; set mqtt.url (with mqtt.enabled false) to remove them at the next start`);
        return 'no-url';
    }
    let secrets = [];
    let conn = null;
    try {
        const settings = await brokerSettings(config.mqtt);
        secrets = settings.secrets;
        conn = await connectBroker(settings);
        await clearRetained(conn, queue, { discovery: presence.discoveryTopics, retained: presence.retainedTopics }, config.mqtt.qos);
        log.info({ broker: settings.displayUrl, topics: presence.discoveryTopics.length + presence.retainedTopics.length }, 'mqtt: removed the station from the broker (MQTT is off)');
        return 'removed';
    }
    catch (err) {
        log.warn(`mqtt: could not remove the station from the broker (tried again at the next start): ${safeMessage(err, secrets)}`);
        return 'failed';
    }
    finally {
        await conn?.end().catch(() => { });
    }
}
