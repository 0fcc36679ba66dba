import { describe, expect, it } from 'vitest';
import { CONFIG_RANGES } from '../../src/wire/types.js';
import { validateStationSettings } from '../../src/config/station-settings.js';

describe('validateStationSettings', () => {
  it('accepts the documented ranges, ends included', () => {
    for (const [key, [min, max]] of Object.entries(CONFIG_RANGES)) {
      expect(validateStationSettings({ [key]: min }), `${key}=${min}`).toEqual([]);
      expect(validateStationSettings({ [key]: max }), `${key}=${max}`).toEqual([]);
    }
    expect(validateStationSettings({})).toEqual([]);
    expect(validateStationSettings({ name: 'Garden', locationPrivacy: true })).toEqual([]);
  });

  it('lists every value the service would reject', () => {
    expect(
      validateStationSettings({
        minConfidence: 0.2,
        minProbability: 1.5,
        minScore: -1,
        minHumanConfidence: 0.3,
        name: '',
        colour: 'red',
      }),
    ).toEqual([
      'station.settings.name must not be empty (got "")',
      'station.settings.minConfidence must be between 0.35 and 1 (got 0.2)',
      'station.settings.minProbability must be between 0 and 1 (got 1.5)',
      'station.settings.minScore must be between 0 and 10 (got -1)',
      'station.settings.minHumanConfidence must be between 0.01 and 0.25 (got 0.3)',
      'unknown key station.settings.colour',
    ]);
  });

  it('takes another key prefix', () => {
    expect(validateStationSettings({ minScore: 11 }, [])).toEqual(['minScore must be between 0 and 10 (got 11)']);
  });
});
