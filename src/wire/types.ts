/**
 * The service's REST V1 interface types, taken from the field tables of
 * `../shared/spec/service-interface.md`. This is the one module the agent and the
 * local service (emulator/, the package @station-agent/emulator) share: the wire contract, nothing else.
 *
 * Field names are the wire names (camelCase, plus the few snake_case ones the spec
 * lists, such as `behavior_key` and `unfiltered_detections`).
 */

export const CLASSIFICATIONS = ['avian', 'amphibian', 'reptile', 'mammal', 'bat', 'insect'] as const;
export type Classification = (typeof CLASSIFICATIONS)[number];

export const SOUNDSCAPE_MODES = ['live', 'recorded', 'analyzerpi'] as const;
export type SoundscapeMode = (typeof SOUNDSCAPE_MODES)[number];

export const BAT_BEHAVIOR_KEYS = [
  'bat_search_open',
  'bat_search_clutter',
  'bat_chase',
  'bat_feeding_buzz',
  'bat_approach',
  'bat_pass',
] as const;
export type BatBehaviorKey = (typeof BAT_BEHAVIOR_KEYS)[number];

export const REST_PERIODS = ['day', 'week', 'month', 'all'] as const;
export type RestPeriod = (typeof REST_PERIODS)[number];

/** Calculated certainty; the spec shows `almost_certain`, the rest follow the species summary's buckets. */
export type Certainty = 'almost_certain' | 'very_likely' | 'uncertain' | 'unlikely';

export const STATION_TYPES = ['analyzerpi', 'puc', 'mobile', 'stream_video', 'stream_audio'] as const;

/** Species as embedded in detections and listings. */
export interface Species {
  id: number;
  commonName: string;
  scientificName: string;
  /** `#rrggbb` */
  color: string;
  classification: Classification;
  imageUrl: string;
  thumbnailUrl: string;
}

/** Species info and species lookup add the encyclopedia, registry and image credit fields. */
export interface FullSpecies extends Species {
  encyclopediaUrl: string | null;
  /** Paragraphs separated by newline characters. */
  encyclopediaSummary: string | null;
  alpha: string | null;
  alpha6: string | null;
  registryCode: string | null;
  registryUrl: string | null;
  imageCredit: string | null;
  imageCreditHtml: string | null;
  imageLicense: string | null;
  imageLicenseUrl: string | null;
}

export interface CertaintyBreakdown {
  total: number;
  almostCertain: number;
  veryLikely: number;
  uncertain: number;
  unlikely: number;
}

/** Item of the station species listing. */
export interface StationSpeciesSummary extends Species {
  detections: CertaintyBreakdown;
  latestDetectionAt: string;
}

export interface DetectionSoundscapeRef {
  /** Present in the response of detection creation; retrieval responses omit it. */
  id?: number;
  url: string;
  startTime: number;
  endTime: number;
  /** One of SOUNDSCAPE_MODES; kept as string so a new mode from the service does not break parsing. */
  mode: string;
}

export interface ShortlistEntry {
  speciesId: number;
  commonName: string;
  scientificName: string;
  /** Normalised 0..1; entries ranked by weight descending. */
  weight: number;
}

export interface Detection {
  id: number;
  stationId: number;
  /** ISO 8601 with the station's offset; start of the detection. */
  timestamp: string;
  species: Species;
  lat: number;
  lon: number;
  confidence: number;
  probability: number | null;
  score: number;
  /** One of CERTAINTIES; kept as string so a new value from the service does not break parsing. */
  certainty: string;
  algorithm: string | null;
  metadata: unknown;
  /** Absent or null when the detection has no soundscape. */
  soundscape?: DetectionSoundscapeRef | null;
  behavior?: string;
  behavior_key?: BatBehaviorKey;
  behavior_confidence?: number;
  shortlist?: ShortlistEntry[];
}

export interface Soundscape {
  id: number;
  stationId: number;
  /** Seconds. The real service has sent both integers and floats. */
  duration: number;
  /** Bytes. */
  filesize: number;
  sampleRate: number;
  timestamp: string;
  /** One of SOUNDSCAPE_MODES; kept as string so a new mode from the service does not break parsing. */
  mode: string;
  url: string;
  /** Only with `detections=true`. */
  detections?: Detection[];
}

/** The station configuration record returned by the config update. */
export interface StationConfigRecord {
  id: number;
  name: string;
  type: string;
  timezone: string | null;
  latestDetectionAt: string | null;
  latestValidDetectionAt: string | null;
  locationPrivacy: boolean;
  minConfidence: number;
  minProbability: number;
  minScore: number;
  minHumanConfidence: number;
}

// ---------------------------------------------------------------------------
// Responses

export interface StatsResponse {
  success: boolean;
  detections: number;
  species: number;
}

export interface SpeciesListResponse {
  success: boolean;
  species: StationSpeciesSummary[];
}

export interface DetectionResponse {
  success: boolean;
  detection: Detection;
}

export interface DetectionListResponse {
  success: boolean;
  detections: Detection[];
  /** Fallback list sent when the filtered listing matches nothing. */
  unfiltered_detections?: Detection[];
}

export interface SoundscapeResponse {
  success: boolean;
  soundscape: Soundscape;
}

export interface SoundscapeListResponse {
  success: boolean;
  soundscapes: Soundscape[];
}

export interface SpeciesInfoResponse {
  success: boolean;
  species: FullSpecies;
}

export interface SpeciesLookupResponse {
  success: boolean;
  /** Keyed by the requested `<scientific>_<common>` strings. */
  species: Record<string, Partial<FullSpecies>>;
}

export interface ConfigUpdateResponse {
  success: boolean;
  station: StationConfigRecord;
}

/** 422 of post detection. */
export interface ValidationErrorBody {
  success: false;
  errors: Record<string, string[]>;
}

/** 403 for a bad token, 404 for an unknown global detection. */
export interface MessageErrorBody {
  success: false;
  message: string;
}

// ---------------------------------------------------------------------------
// Requests

export interface StatsQuery {
  period?: RestPeriod;
  since?: string;
  mode?: SoundscapeMode;
  /** One classification or a list (sent comma-separated). */
  classification?: Classification | Classification[];
}

export interface SpeciesListQuery {
  period?: RestPeriod;
  from?: string;
  to?: string;
  since?: string;
  limit?: number;
  page?: number;
  sort?: 'common_name' | 'scientific_name' | 'top';
  order?: 'asc' | 'desc';
  speciesId?: number;
  query?: string;
  mode?: SoundscapeMode;
  locale?: string;
  classification?: Classification | Classification[];
}

export interface DetectionListQuery {
  limit?: number;
  cursor?: number;
  from?: string;
  to?: string;
  speciesId?: number;
  query?: string;
  mode?: SoundscapeMode;
  locale?: string;
  classification?: Classification | Classification[];
  behavior?: BatBehaviorKey | BatBehaviorKey[];
  shortlist?: boolean;
}

export interface SoundscapeListQuery {
  limit?: number;
  cursor?: number;
  from?: string;
  to?: string;
  speciesId?: number;
  detections?: boolean;
}

export interface PostDetectionBody {
  /** ISO 8601 with offset; start of the detection. */
  timestamp: string;
  commonName: string;
  scientificName: string;
  lat?: number;
  lon?: number;
  confidence?: number;
  soundscapeId?: number;
  soundscapeStartTime?: number;
  soundscapeEndTime?: number;
}

export interface ConfigUpdateBody {
  name?: string;
  locationPrivacy?: boolean;
  /** 0.35 to 1.0 */
  minConfidence?: number;
  /** 0.0 to 1.0 */
  minProbability?: number;
  /** 0.0 to 10.0 */
  minScore?: number;
  /** 0.01 to 0.25, default 0.04 */
  minHumanConfidence?: number;
}

/** Documented ranges of the config update, shared by the agent's local check and the local service. */
export const CONFIG_RANGES = {
  minConfidence: [0.35, 1.0],
  minProbability: [0.0, 1.0],
  minScore: [0.0, 10.0],
  minHumanConfidence: [0.01, 0.25],
} as const satisfies Record<string, readonly [number, number]>;

export const LIST_LIMIT_MAX = 100;
export const LIST_LIMIT_DEFAULT = 100;
