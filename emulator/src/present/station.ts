import type { StationConfigRecord } from '../../../src/wire/types.js';
import type { EmulatorStore, StationRecord } from '../store/index.js';
import { formatTimestamp } from '../time.js';

/**
 * The configuration record of the config update. `latestValidDetectionAt` is the
 * newest detection that meets the station's own minimums (confidence, probability
 * and score), the local service's reading of "valid".
 */
export function presentStationConfig(station: StationRecord, store: EmulatorStore): StationConfigRecord {
  const latest = store.detections.latestTimestamp(station.id);
  const latestValid = store.detections.latestTimestamp(station.id, {
    confidence: station.minConfidence,
    probability: station.minProbability,
    score: station.minScore,
  });
  return {
    id: station.id,
    name: station.name,
    type: station.type,
    timezone: station.timezone,
    latestDetectionAt: latest === null ? null : formatTimestamp(latest, station.timezone),
    latestValidDetectionAt: latestValid === null ? null : formatTimestamp(latestValid, station.timezone),
    locationPrivacy: station.locationPrivacy,
    minConfidence: station.minConfidence,
    minProbability: station.minProbability,
    minScore: station.minScore,
    minHumanConfidence: station.minHumanConfidence,
  };
}
