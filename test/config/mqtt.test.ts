import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig, redactConfig } from '../../src/config/index.js';
import { tempDir } from '../helpers/paths.js';

const BASE = { service: { baseUrl: 'http://127.0.0.1:9' }, station: { latitude: 1, longitude: 2 }, input: { dir: '/in' } };
let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function problems(mqtt: Record<string, unknown>): readonly string[] {
  try {
    parseConfig({ ...BASE, mqtt });
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
}

describe('config key mqtt', () => {
  it('is off by default, with QoS 1, state retained and Home Assistant discovery', () => {
    const { mqtt } = parseConfig(BASE);
    expect(mqtt).toMatchObject({ enabled: false, url: null, qos: 1, retain: 'state', discovery: true, discoveryPrefix: 'homeassistant', topicPrefix: 'station-agent' });
    expect(mqtt.clientId).toMatch(/^station-agent-[a-z0-9_-]+$/);
  });

  it('names the key of each mistake', () => {
    expect(problems({ enabled: true })).toEqual([expect.stringMatching(/^mqtt\.url is required when mqtt\.enabled is true/)]);
    expect(problems({ url: 'http://broker' })[0]).toMatch(/^mqtt\.url must be an mqtt:\/\/, mqtts:\/\/, ws:\/\/ or wss:\/\/ URL/);
    expect(problems({ qos: 3 })[0]).toMatch(/^mqtt\.qos must be 0, 1 or 2/);
    expect(problems({ topicPrefix: 'a/#' })[0]).toMatch(/^mqtt\.topicPrefix must be topic levels/);
    expect(problems({ clientId: 'has space' })[0]).toMatch(/^mqtt\.clientId/);
    for (const url of ['mqtt://h:1883', 'mqtts://h:8883', 'ws://h:9001/mqtt']) expect(problems({ enabled: true, url })).toEqual([]);
  });

  it('is set from the environment like every key, and a password in the URL never shows', async () => {
    const { dir, cleanup: done } = tempDir();
    cleanup = done;
    const file = path.join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(BASE));
    const env = { STATION_AGENT_MQTT_ENABLED: 'true', STATION_AGENT_MQTT_URL: 'mqtt://u:s3cret-pw@broker:1883', STATION_AGENT_MQTT_QOS: '2' };
    const { config } = await loadConfig({ path: file, env });
    expect(config.mqtt).toMatchObject({ enabled: true, url: 'mqtt://u:s3cret-pw@broker:1883', qos: 2 });
    expect(JSON.stringify(redactConfig(config))).not.toContain('s3cret-pw');
    expect(redactConfig(config).mqtt.url).toBe('mqtt://<redacted>@broker:1883');

    const bad = loadConfig({ path: file, env: { STATION_AGENT_MQTT_URL: 'mqtt://u:s3cret-pw@', STATION_AGENT_MQTT_QOS: '7' } });
    await expect(bad).rejects.toBeInstanceOf(ConfigError);
    const err = (await bad.catch((e: unknown) => e)) as ConfigError;
    expect(err.problems.join('\n')).not.toContain('s3cret-pw');
  });
});
