import { setTimeout as sleep } from 'node:timers/promises';
import { deadline } from '../system/deadline.js';
import { MqttError } from './errors.js';
import { safeMessage } from './options.js';
export async function connectBroker(settings) {
    const { connectAsync } = await import('mqtt');
    let client;
    try {
        client = await connectAsync(settings.url, settings.options, false);
    }
    catch (err) {
        throw new MqttError('ERR_MQTT_BROKER', `cannot connect to the MQTT broker ${settings.displayUrl}: ${safeMessage(err, settings.secrets)}`, {
            cause: err,
        });
    }
    let open = true;
    let lastError = null;
    const closed = new Promise((resolve) => {
        client.on('error', (err) => (lastError = err));
        client.once('close', () => {
            open = false;
            const why = lastError ? safeMessage(lastError, settings.secrets) : 'the connection closed';
            resolve(new MqttError('ERR_MQTT_BROKER', `lost the MQTT broker ${settings.displayUrl}: ${why}`));
        });
    });
    return {
        closed,
        get isOpen() {
            return open;
        },
        async publish(topic, payload, options) {
            if (!open)
                throw new MqttError('ERR_MQTT_PUBLISH', `not connected to the MQTT broker ${settings.displayUrl}`);
            const lost = closed.then((err) => Promise.reject(new MqttError('ERR_MQTT_PUBLISH', `${topic}: not acknowledged (${err.message})`)));
            lost.catch(() => { });
            const limit = deadline(settings.publishTimeoutMs);
            const late = new Promise((_, reject) => limit.signal.addEventListener('abort', () => reject(new MqttError('ERR_MQTT_PUBLISH', `${topic}: not acknowledged within ${settings.publishTimeoutMs} ms`))));
            late.catch(() => { });
            try {
                await Promise.race([client.publishAsync(topic, payload, options), lost, late]);
            }
            catch (err) {
                if (err instanceof MqttError)
                    throw err;
                throw new MqttError('ERR_MQTT_PUBLISH', `${topic}: ${safeMessage(err, settings.secrets)}`, { cause: err });
            }
            finally {
                limit.clear();
            }
        },
        async end() {
            if (!open) {
                client.end(true);
                return;
            }
            await Promise.race([client.endAsync(false), sleep(2_000, undefined, { ref: false })]);
            client.end(true);
        },
    };
}
