import type { BatBehaviorKey, Certainty, Classification } from '../../../api/types.js';
import type { DetectionRecord, ShortlistItem, SpeciesRecord } from '../../store/index.js';

/** A `detections` row as SQLite returns it (the store's schema, read-only here). */
export interface DetectionRow extends Record<string, unknown> {
  id: number;
  station_id: number;
  species_id: number;
  timestamp_ms: number;
  lat: number;
  lon: number;
  confidence: number;
  probability: number | null;
  score: number;
  certainty: string;
  algorithm: string | null;
  metadata: string | null;
  mode: string;
  soundscape_id: number | null;
  soundscape_start: number | null;
  soundscape_end: number | null;
  behavior_key: string | null;
  behavior_confidence: number | null;
  shortlist: string | null;
  created_ms: number;
}

export function toDetectionRecord(row: DetectionRow): DetectionRecord {
  return {
    id: row.id,
    stationId: row.station_id,
    speciesId: row.species_id,
    timestampMs: row.timestamp_ms,
    lat: row.lat,
    lon: row.lon,
    confidence: row.confidence,
    probability: row.probability,
    score: row.score,
    certainty: row.certainty as Certainty,
    algorithm: row.algorithm,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as unknown),
    mode: row.mode,
    soundscapeId: row.soundscape_id,
    soundscapeStartTime: row.soundscape_start,
    soundscapeEndTime: row.soundscape_end,
    behaviorKey: row.behavior_key as BatBehaviorKey | null,
    behaviorConfidence: row.behavior_confidence,
    shortlist: row.shortlist === null ? null : (JSON.parse(row.shortlist) as ShortlistItem[]),
    createdMs: row.created_ms,
  };
}

/** A `species` row as SQLite returns it. */
export interface SpeciesRow extends Record<string, unknown> {
  id: number;
  scientific_name: string;
  common_name: string;
  classification: string;
  color: string;
  alpha: string | null;
  alpha6: string | null;
}

export function toSpeciesRecord(row: SpeciesRow): SpeciesRecord {
  return {
    id: row.id,
    scientificName: row.scientific_name,
    commonName: row.common_name,
    classification: row.classification as Classification,
    color: row.color,
    alpha: row.alpha,
    alpha6: row.alpha6,
  };
}
