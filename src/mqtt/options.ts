import type { IClientOptions } from 'mqtt';
import type { MqttConfig } from '../config/schema.js';
import { addSecret, redactText, redactUrl, urlPassword } from '../wire/redact.js';
import { fileProblem, readSecretFile } from '../config/secret-files.js';
import { readRegularFileBounded } from '../system/regular-file.js';
import { MqttError } from './errors.js';

/**
 * From the `mqtt` settings to the mqtt client's connect options: the password file and
 * the CA file are read here, at each connect (a password changed on disk is used on the
 * next reconnect). The password (file or URL) is in the secret registry
 * (src/wire/redact.ts) before the client could put it into a message; the result
 * carries a URL safe to show.
 */
export interface BrokerSettings {
  url: string;
  /** The URL as scheme, host and port (src/wire/redact.ts `redactUrl`): for logs, status and doctor. */
  displayUrl: string;
  options: IClientOptions;
  /** E.g. a password file other users can read. */
  warnings: string[];
  /** How long the broker has to acknowledge a publish (QoS 1 and 2). */
  publishTimeoutMs: number;
}

/** How long a connect may take before it counts as failed (mqtt.js's connectTimeout: from the connect to the CONNACK, in all). */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * How long a publish may wait for the broker's acknowledgement. A broker that keeps
 * answering pings but never acknowledges would otherwise hold the publisher for ever:
 * at this limit the session ends and the batch goes again after a reconnect.
 */
const PUBLISH_TIMEOUT_MS = 30_000;
/** Keep-alive in seconds: a broker that stops answering is noticed within 1.5 times this. */
const KEEPALIVE_S = 30;

export interface BrokerSettingsExtras {
  /** The last will: published by the broker when the connection is lost. */
  will?: IClientOptions['will'];
  connectTimeoutMs?: number;
  publishTimeoutMs?: number;
}

export async function brokerSettings(mqtt: MqttConfig, extras: BrokerSettingsExtras = {}): Promise<BrokerSettings> {
  if (!mqtt.url) throw new MqttError('ERR_MQTT_CONFIG', 'mqtt.url is not set');
  const passwordFile = mqtt.passwordFile ? await readSecretFile('mqtt.passwordFile', mqtt.passwordFile) : undefined;
  const password = passwordFile?.value;
  const ca = mqtt.caFile ? await readCaFile(mqtt.caFile) : undefined;
  addSecret(urlPassword(mqtt.url));
  const options: IClientOptions = {
    clientId: mqtt.clientId,
    protocolVersion: mqtt.version === '5' ? 5 : 4,
    // A clean session and no automatic reconnect: the publisher reconnects with its own
    // backoff and a fresh client, so nothing piles up in the client's offline queue.
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
    warnings: passwordFile?.looseMode ? [passwordFile.looseMode] : [],
    publishTimeoutMs: extras.publishTimeoutMs ?? PUBLISH_TIMEOUT_MS,
  };
}

/** `err`'s message without the broker's password (or any other registered secret). */
export function safeMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return redactText(text);
}

/** A CA bundle is a few kilobytes; a bound keeps a wrong path (a log, a disk image) out of memory. */
const CA_FILE_MAX_BYTES = 1024 * 1024;

async function readCaFile(file: string): Promise<Buffer> {
  try {
    return (await readRegularFileBounded(file, CA_FILE_MAX_BYTES, { followSymlinks: true })).bytes;
  } catch (err) {
    throw new MqttError('ERR_MQTT_CONFIG', `mqtt.caFile ${file} ${fileProblem(err)}`);
  }
}
