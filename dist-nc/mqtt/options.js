import { redactUrl, urlPassword } from '../wire/redact.js';
import { fileProblem, readSecretFile } from '../config/secret-files.js';
import { readRegularFileBounded } from '../system/regular-file.js';
import { redactText } from '../wire/redact.js';
import { MqttError } from './errors.js';
export const CONNECT_TIMEOUT_MS = 10_000;
export const PUBLISH_TIMEOUT_MS = 30_000;
const KEEPALIVE_S = 30;
export async function brokerSettings(mqtt, extras = {}) {
    if (!mqtt.url)
        throw new MqttError('ERR_MQTT_CONFIG', 'mqtt.url is not set');
    const passwordFile = mqtt.passwordFile ? await readSecretFile('mqtt.passwordFile', mqtt.passwordFile) : undefined;
    const password = passwordFile?.value;
    const ca = mqtt.caFile ? await readCaFile(mqtt.caFile) : undefined;
    const secrets = [password, urlPassword(mqtt.url)].filter((s) => typeof s === 'string' && s !== '');
    const options = {
        clientId: mqtt.clientId,
        protocolVersion: mqtt.version === '5' ? 5 : 4,
        clean: true,
        reconnectPeriod: 0,
        connectTimeout: extras.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
        keepalive: KEEPALIVE_S,
        queueQoSZero: false,
        ...(mqtt.username !== undefined ? { username: mqtt.username } : {}),
        ...(password !== undefined ? { password } : {}),
        ...(ca !== undefined ? { ca } : {}),
        ...(extras.will ? { will: extras.will } : {}),
    };
    return {
        url: mqtt.url,
        displayUrl: redactUrl(mqtt.url),
        options,
        secrets,
        warnings: passwordFile?.looseMode ? [passwordFile.looseMode] : [],
        publishTimeoutMs: extras.publishTimeoutMs ?? PUBLISH_TIMEOUT_MS,
    };
}
export function safeMessage(err, secrets) {
    const text = err instanceof Error ? err.message : String(err);
    return redactText(text, secrets);
}
const CA_FILE_MAX_BYTES = 1024 * 1024;
async function readCaFile(file) {
    try {
        return (await readRegularFileBounded(file, CA_FILE_MAX_BYTES, { followSymlinks: true })).bytes;
    }
    catch (err) {
        throw new MqttError('ERR_MQTT_CONFIG', `mqtt.caFile ${file} ${fileProblem(err)}`);
    }
}
