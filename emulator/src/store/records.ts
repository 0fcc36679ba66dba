import type { BatBehaviorKey, Certainty, Classification } from '../../../src/wire/types.js';

/**
 * Rows of the local service's store, as the rest of the emulator sees them. Times
 * are UTC epoch milliseconds; the REST and GraphQL layers render them in the
 * station's time zone.
 */

/** 'bat' serves shortlists; 'standard_bat' (the beta bat units) never does. */
export const STATION_EDITIONS = ['standard', 'bat', 'standard_bat'] as const;
export type StationEdition = (typeof STATION_EDITIONS)[number];

export interface StationRecord {
  id: number;
  token: string;
  name: string;
  type: string;
  edition: StationEdition;
  lat: number;
  lon: number;
  /** IANA zone name, e.g. `Europe/Berlin`; `UTC` by default. */
  timezone: string;
  active: boolean;
  locationPrivacy: boolean;
  minConfidence: number;
  minProbability: number;
  minScore: number;
  minHumanConfidence: number;
  createdMs: number;
}

export interface SpeciesRecord {
  id: number;
  scientificName: string;
  commonName: string;
  classification: Classification;
  color: string;
  alpha: string | null;
  alpha6: string | null;
}

export interface SoundscapeRecord {
  id: number;
  stationId: number;
  timestampMs: number;
  /** Whole seconds (rounded). */
  duration: number;
  filesize: number;
  sampleRate: number;
  mode: string;
  /** Path of the audio file relative to the data folder's `soundscapes/`. */
  fileKey: string;
  createdMs: number;
}

export interface ShortlistItem {
  speciesId: number;
  weight: number;
}

export interface DetectionRecord {
  id: number;
  stationId: number;
  speciesId: number;
  timestampMs: number;
  lat: number;
  lon: number;
  confidence: number;
  probability: number | null;
  score: number;
  certainty: Certainty;
  algorithm: string | null;
  metadata: unknown;
  /** Recording mode: the soundscape's, or the station's default without one. */
  mode: string;
  soundscapeId: number | null;
  soundscapeStartTime: number | null;
  soundscapeEndTime: number | null;
  behaviorKey: BatBehaviorKey | null;
  behaviorConfidence: number | null;
  shortlist: ShortlistItem[] | null;
  createdMs: number;
}

export type NewDetection = Omit<DetectionRecord, 'id' | 'createdMs'>;
export type NewSoundscape = Omit<SoundscapeRecord, 'id' | 'createdMs'>;
