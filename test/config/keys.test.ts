import { describe, expect, it } from 'vitest';
import { configKeys, envNameFor, upperSnake } from '../../src/config/schema-keys.js';

describe('config keys', () => {
  it('derives one distinct environment variable per key', () => {
    const keys = configKeys();
    const names = keys.map((k) => k.envName);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'STATION_AGENT_SERVICE_BASE_URL',
        'STATION_AGENT_SERVICE_TOKEN',
        'STATION_AGENT_SERVICE_TOKEN_FILE',
        'STATION_AGENT_STATION_SETTINGS_MIN_HUMAN_CONFIDENCE',
        'STATION_AGENT_INPUT_ANALYZERPI_JSON_TIMEOUT_SEC',
        'STATION_AGENT_DATA_DIR',
        'STATION_AGENT_UPLOAD_CONCURRENCY',
        'STATION_AGENT_LOG_LEVEL',
      ]),
    );
    expect(names).not.toContain('STATION_AGENT_CONFIG');
    expect(names).not.toContain('STATION_AGENT_ADMIN_TOKEN');
  });

  it('converts camel case key paths to upper snake case', () => {
    expect(upperSnake('minHumanConfidence')).toBe('MIN_HUMAN_CONFIDENCE');
    expect(envNameFor(['service', 'timeoutMs'])).toBe('STATION_AGENT_SERVICE_TIMEOUT_MS');
  });

  it('documents every key with a description and an example the key accepts', () => {
    for (const key of configKeys()) {
      expect(typeof key.meta.description, key.id).toBe('string');
      expect((key.meta.description as string).length, key.id).toBeGreaterThan(10);
      expect(Array.isArray(key.meta.examples), key.id).toBe(true);
      const [example] = key.meta.examples as unknown[];
      expect(key.schema.safeParse(example).success, `${key.id} example ${JSON.stringify(example)}`).toBe(true);
    }
  });

  it('marks the path-valued keys and the token', () => {
    const paths = configKeys()
      .filter((k) => k.meta.path === true)
      .map((k) => k.id);
    expect(paths).toEqual([
      'service.tokenFile',
      'input.dir',
      'input.labels',
      'input.localizedLabels',
      'input.moveTo',
      'dataDir',
      'mqtt.passwordFile',
      'mqtt.caFile',
      'alerts.webhook.secretFile',
    ]);
    // mqtt.url: a password may be written into it.
    expect(configKeys().filter((k) => k.meta.secret === true).map((k) => k.id)).toEqual(['service.token', 'mqtt.url']);
  });
});
