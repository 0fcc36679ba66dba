import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { parseConfig } from '../../src/config/validate.js';
import { getAt } from '../../src/config/merge.js';
import { configKeys } from '../../src/config/schema-keys.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';

describe('config.example.json', () => {
  const example: unknown = JSON.parse(readFileSync(path.join(REPO_ROOT, 'config.example.json'), 'utf8'));

  it('is valid', () => {
    const config = parseConfig(example, 'config.example.json');
    expect(config.station.settings.name).toBe('Garden');
    expect(config.service.tokenFile).toBe('/etc/station-agent/token');
  });

  it('shows every key (the token only as tokenFile: set one of the two)', () => {
    const missing = configKeys()
      .filter((k) => getAt(example, k.path) === undefined)
      .map((k) => k.id);
    expect(missing).toEqual(['service.token']);
  });
});

describe('docs/examples/garden-privacy.json (a privacy-first garden station)', () => {
  const file = path.join(REPO_ROOT, 'docs/examples/garden-privacy.json');

  it('loads through the real config loader with the policies it documents', async () => {
    // The token file it names exists on the station, not here: one from the environment stands in.
    const { dir, cleanup } = tempDir();
    const tokenFile = path.join(dir, 'token');
    writeFileSync(tokenFile, 'station-token\n', { mode: 0o600 });
    const { config } = await loadConfig({ path: file, env: { STATION_AGENT_SERVICE_TOKEN_FILE: tokenFile } }).finally(cleanup);
    expect(config.privacy).toEqual({
      audio: 'upload',
      withholdHumanRecordings: true,
      humanClasses: ['Human vocal', 'Human non-vocal', 'Human whistle'],
      humanMinConfidence: 0.01,
    });
    expect(config.filters).toMatchObject({ exclude: ['House Sparrow'], speciesMinConfidence: { 'Eurasian Magpie': 0.85 }, minDetectionsPer24h: 2 });
    expect(config.filters.nonBirdClasses).toContain('Dog');
  });
});

describe('privacy and filters keys', () => {
  const base = { service: { baseUrl: 'http://localhost:1' }, station: { latitude: 0, longitude: 0 }, input: { dir: '/in' } };

  it('take lists and maps from the environment as JSON', async () => {
    const { config } = await loadConfig({
      env: {
        STATION_AGENT_SERVICE_BASE_URL: 'http://localhost:1',
        STATION_AGENT_STATION_LATITUDE: '0',
        STATION_AGENT_STATION_LONGITUDE: '0',
        STATION_AGENT_INPUT_DIR: '/in',
        STATION_AGENT_PRIVACY_AUDIO: 'never',
        STATION_AGENT_FILTERS_EXCLUDE: '["Dog", "House Sparrow"]',
        STATION_AGENT_FILTERS_SPECIES_MIN_CONFIDENCE: '{"Pica pica": 0.9}',
        STATION_AGENT_FILTERS_MIN_DETECTIONS_PER24H: '3',
      },
    });
    expect(config.privacy.audio).toBe('never');
    expect(config.filters).toMatchObject({ exclude: ['Dog', 'House Sparrow'], speciesMinConfidence: { 'Pica pica': 0.9 }, minDetectionsPer24h: 3 });
  });

  it('name the key in their errors', () => {
    expect(() => parseConfig({ ...base, filters: { speciesMinConfidence: { 'Pica pica': 2 } } }, 'c.json')).toThrow(/filters\.speciesMinConfidence\.Pica pica.*between 0 and 1/);
    expect(() => parseConfig({ ...base, privacy: { audio: 'sometimes' } }, 'c.json')).toThrow(/privacy\.audio/);
    expect(() => parseConfig({ ...base, filters: { include: ['Pica pica', ' '] } }, 'c.json')).toThrow(/filters\.include\.1.*empty/);
    expect(() => parseConfig({ ...base, filters: { minDetectionsPer24h: 0 } }, 'c.json')).toThrow(/filters\.minDetectionsPer24h/);
  });
});
