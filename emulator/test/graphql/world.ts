import { expect } from 'vitest';
import type { EmulatorOptions, StationSeed } from '../../src/index.js';
import { startGqlService, type GqlService } from './helpers.js';

/**
 * A small world for the GraphQL tests: stations of several types, zones and privacy
 * settings, and a fixed clock so that periods are exact. Every station's minimum
 * confidence is 0.5, so detections posted with confidence 0.4 are below it.
 */
export const NOW = Date.UTC(2025, 5, 10, 12, 0, 0);

export const STATIONS = {
  garden: { token: 'garden-token', name: 'Garden', lat: 52.52, lon: 13.405, timezone: 'Europe/Berlin', minConfidence: 0.5 },
  ridge: { token: 'ridge-token', name: 'Ridge', type: 'stream_audio', lat: 42.48, lon: -76.45, timezone: 'America/New_York', minConfidence: 0.5 },
  phone: { token: 'phone-token', name: 'Phone', type: 'mobile', lat: 48.1, lon: 11.6, timezone: 'Europe/Berlin', minConfidence: 0.5 },
  hidden: { token: 'hidden-token', name: 'Hidden', lat: 47.123456, lon: 8.56789, timezone: 'Europe/Zurich', locationPrivacy: true, minConfidence: 0.5 },
  sensor: { token: 'sensor-token', name: 'Sensor', type: 'puc', timezone: 'UTC', minConfidence: 0.5 },
  off: { token: 'off-token', name: 'Off', active: false },
} satisfies Record<string, StationSeed>;

export type StationKey = keyof typeof STATIONS;

export interface World extends GqlService {
  /** REST ids of the stations. */
  ids: Record<StationKey, number>;
  /** Posts a detection at a station `minutesAgo` before NOW; returns the REST detection. */
  detect: (station: StationKey, minutesAgo: number, fields?: Record<string, unknown>) => Promise<PostedDetection>;
}

export interface PostedDetection {
  id: number;
  score: number;
  confidence: number;
  probability: number;
  timestamp: string;
}

export const SPECIES = {
  blackbird: { scientificName: 'Turdus merula', commonName: 'Eurasian Blackbird' },
  robin: { scientificName: 'Erithacus rubecula', commonName: 'European Robin' },
  thrush: { scientificName: 'Turdus philomelos', commonName: 'Song Thrush' },
  pipistrelle: { scientificName: 'Pipistrellus pipistrellus', commonName: 'Common Pipistrelle' },
  cricket: { scientificName: 'Oecanthus fultoni', commonName: 'Snowy Tree Cricket' },
} as const;

export async function startWorld(options: EmulatorOptions = {}): Promise<World> {
  const service = await startGqlService({ ...options, stations: Object.values(STATIONS), now: () => NOW });
  const ids = {} as Record<StationKey, number>;
  for (const [key, seed] of Object.entries(STATIONS) as [StationKey, StationSeed][]) {
    ids[key] = service.emulator.store.stations.byToken(seed.token)!.id;
  }
  return {
    ...service,
    ids,
    detect: async (station, minutesAgo, fields = {}) => {
      const answer = await service.post(service.station('/detections', STATIONS[station].token), {
        json: { ...SPECIES.blackbird, confidence: 0.9, timestamp: new Date(NOW - minutesAgo * 60_000).toISOString(), ...fields },
      });
      expect(answer.status, answer.text).toBe(201);
      const d = answer.body.detection;
      return { id: d.id, score: d.score, confidence: d.confidence, probability: d.probability!, timestamp: d.timestamp };
    },
  };
}
