import { EmulatorOptionError } from './errors.js';
import { DEFAULT_LOCATION, DEFAULT_STATION_CONFIG, type StationSeed } from './options.js';
import type { EmulatorStore } from './store/index.js';

/** Creates the seeded stations that the database does not have yet (by token). */
export function seedStations(store: EmulatorStore, seeds: readonly StationSeed[], nowMs: number): void {
  store.transaction(() => {
    seeds.forEach((seed, index) => {
      if (store.stations.byToken(seed.token)) return;
      if (seed.id !== undefined && store.stations.byId(seed.id)) {
        throw new EmulatorOptionError(`station ${index + 1}: id ${seed.id} is already taken by another station`);
      }
      store.stations.insert(
        {
          id: seed.id,
          token: seed.token,
          name: seed.name ?? `Station ${index + 1}`,
          type: seed.type ?? 'analyzerpi',
          edition: seed.edition ?? 'standard',
          lat: seed.lat ?? DEFAULT_LOCATION.lat,
          lon: seed.lon ?? DEFAULT_LOCATION.lon,
          timezone: seed.timezone ?? 'UTC',
          active: seed.active ?? true,
          locationPrivacy: seed.locationPrivacy ?? DEFAULT_STATION_CONFIG.locationPrivacy,
          minConfidence: seed.minConfidence ?? DEFAULT_STATION_CONFIG.minConfidence,
          minProbability: seed.minProbability ?? DEFAULT_STATION_CONFIG.minProbability,
          minScore: seed.minScore ?? DEFAULT_STATION_CONFIG.minScore,
          minHumanConfidence: seed.minHumanConfidence ?? DEFAULT_STATION_CONFIG.minHumanConfidence,
        },
        nowMs,
      );
    });
  });
}

/** The recording mode of a station's soundscapes and of its detections without one. */
export function defaultModeOf(station: { type: string }): string {
  return station.type === 'analyzerpi' ? 'analyzerpi' : 'live';
}
