import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { getAt } from '../../src/config/merge.js';
import { configKeys } from '../../src/config/schema-keys.js';
import { REPO_ROOT } from '../helpers/paths.js';

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
