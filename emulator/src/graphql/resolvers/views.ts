import type { SoundscapeRecord } from '../../store/index.js';

/**
 * Parents of the object types that are not store records. Store records
 * (DetectionRecord, SpeciesRecord, StationRecord) are the parents of Detection,
 * Sighting, Species and Station.
 */

/** A soundscape as one detection sees it (start and end of the detection within the audio). */
export interface SoundscapeView {
  soundscape: SoundscapeRecord;
  startTime: number;
  endTime: number;
}

/** BinnedSpeciesCount: keys already in their wire form (hour number or ISO timestamp). */
export interface BinnedView {
  speciesId: number;
  count: number;
  bins: { key: number | string; count: number }[];
}

/** SpeciesCount */
export interface SpeciesCountView {
  speciesId: number;
  count: number;
  averageProbability: number | null;
  breakdown: { almostCertain: number; veryLikely: number; uncertain: number; unlikely: number };
}

/** StationCount, SummarySpeciesCount, Probability */
export interface StationCountView {
  stationId: number;
  count: number;
}

export interface SpeciesNumberView {
  speciesId: number;
  count?: number;
  probability?: number;
}
