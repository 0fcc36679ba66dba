import { DETECTION_EXTRA_ARGS, DETECTION_LIST_FILTERS, PAGE_ARGS, PERIOD_ARG } from './arguments.js';

/** SDL of the object types of the spec's type table: detections, soundscapes, species, stations and counts. */
export const TYPES_SDL = /* GraphQL */ `
"A species identified in audio at a station."
type Detection {
  "Calculated: almost_certain, very_likely, uncertain or unlikely."
  certainty: String!
  "Confidence reported by the analyzer."
  confidence: Float!
  coords: Coordinates!
  "total, partial or null (vicinity to the 2024 solar eclipse path); the local service has no path data: always null."
  eclipse: String
  "Page of the service for marking the detection a favourite (not served by the local service)."
  favoriteUrl: String!
  "Page of the service for flagging the detection (not served by the local service)."
  flagUrl: String!
  id: ID!
  probability: Float
  "Calculated score, 0 to 10."
  score: Float!
  soundscape: Soundscape
  species: Species!
  speciesId: ID!
  station: Station
  "Start of the detection, in the station's time zone."
  timestamp: ISO8601DateTime
  "Page of the service for voting on the detection (not served by the local service)."
  voteUrl: String!
}

type DetectionEdge {
  cursor: String!
  node: Detection
}

type DetectionConnection {
  edges: [DetectionEdge]
  nodes: [Detection]
  pageInfo: PageInfo!
  totalCount: Int!
  "Number of distinct species among all matching detections (not only this page)."
  speciesCount: Int!
}

"The audio a detection was found in, with the detection's place in it."
type Soundscape {
  downloadFilename: String!
  "Seconds."
  duration: Int!
  "Seconds, end of the detection within the audio."
  endTime: Float!
  "Bytes."
  filesize: Int!
  id: ID!
  "live, recorded or analyzerpi."
  mode: String!
  "Seconds, start of the detection within the audio."
  startTime: Float!
  station: Station
  timestamp: ISO8601DateTime!
  url: String!
}

type Species {
  "4-letter alpha code."
  alpha: String
  "6-letter alpha code."
  alpha6: String
  "Page of the species on the service (the local service has none: null)."
  serviceUrl: String
  color: String!
  commonName: String!
  "Detections of this species over time, all stations together (bins with no detections are left out)."
  detectionCounts(${PERIOD_ARG}
    "Only detections of these stations."
    stationIds: [ID!]
    "Bin width: hour or day (UTC); default day."
    interval: String
  ): BinnedSpeciesCount!
  registryCode: String
  registryUrl: String
  id: ID!
  imageCredit: String
  imageLicense: String
  imageLicenseUrl: String
  "400x400 image (a drawn placeholder on the local service)."
  imageUrl: String
  "Media-archive page (none on the local service: null)."
  mlUrl: String
  predictionArea: JSON
  range: JSON
  scientificName: String
  "Stations that detected the species in the period, most detections first."
  stations(${PERIOD_ARG}
    "At most this many stations (1 to 100; default 20)."
    limit: Int
  ): [StationCount!]!
  "100x100 image (a drawn placeholder on the local service)."
  thumbnailUrl: String
  "The top detection (highest score, then newest) for each station where the species was detected, best first."
  topDetections(${PAGE_ARGS}${PERIOD_ARG}
  ): DetectionConnection!
  "Names in other languages; the local catalog holds one (en)."
  translations(
    "Only these locales (ISO 639-1)."
    locales: [String!]
  ): [SpeciesTranslation!]!
  encyclopediaSummary: String
  encyclopediaUrl: String
}

type SpeciesEdge {
  cursor: String!
  node: Species
}

type SpeciesConnection {
  edges: [SpeciesEdge]
  nodes: [Species]
  pageInfo: PageInfo!
  totalCount: Int!
}

"""
A species' name in one language. The spec does not show the fields of SpeciesTranslation; this
local service uses these.
"""
type SpeciesTranslation {
  commonName: String
  "ISO 639-1 code, e.g. en."
  locale: String!
  encyclopediaSummary: String
  encyclopediaUrl: String
}

"A station's number of detections of one species. The spec does not show the fields of StationCount; this local service uses these."
type StationCount {
  count: Int!
  station: Station
  stationId: ID!
}

"A station's detection and species counts. The spec does not show the fields of StationCounts; this local service uses these."
type StationCounts {
  detections: Int!
  species: Int!
}

"""
How likely a species is at the station's place, 0 to 1 (the local service's documented stand-in
rule, the same that gives detections their probability). The spec does not show the fields of
Probability; this local service uses these.
"""
type Probability {
  probability: Float!
  species: Species!
  speciesId: ID!
}

type Station {
  "Air quality at the station (the local service has no source: null)."
  airPollution: AirPollutionReading
  audioUrl: String
  "Derived from the station's time zone (e.g. Europe/Berlin: Europe); null when the zone names no continent (UTC)."
  continent: String
  "Null for a station with location privacy."
  coords: Coordinates
  "The local service stores no country: null."
  country: String
  "Detections and species in the period, after the station's own minimums."
  counts(${PERIOD_ARG}
  ): StationCounts!
  "Detections per species over time (bins with no detections are left out), most detected species first."
  detectionCounts(${PERIOD_ARG}
    "Only this species."
    speciesId: ID
    "Bin width: hour or day (UTC); default day."
    interval: String
  ): [BinnedSpeciesCount!]!
  "The station's detections, newest first."
  detections(${PAGE_ARGS}${PERIOD_ARG}
    "Only detections of this species."
    speciesId: ID${DETECTION_LIST_FILTERS}${DETECTION_EXTRA_ARGS}
  ): DetectionConnection!
  earliestDetectionAt: ISO8601DateTime
  "total, partial or null; the local service has no eclipse path data: always null."
  eclipse: String
  "Whether the station's detections carry an occurrence probability (always true here)."
  hasProbabilities: Boolean!
  id: ID!
  latestDetectionAt: ISO8601DateTime
  "Human-readable place (the local service has no geocoder: null)."
  location: String
  locationPrivacy: Boolean!
  minConfidence: Float
  minProbability: Float
  minScore: Float
  name: String!
  notes: String
  "Supports detections outside the station location (true for mobile stations)."
  portableDetections: Boolean!
  "Occurrence probability at the station of each species it detected, most probable first."
  probabilities(
    "Only these species."
    speciesIds: [ID!]
  ): [Probability!]!
  "Sensor readings: an object with no readings for puc stations (the local service has no sensor source), null for the others."
  sensors: Sensors
  "Stream source URL; superseded by audioUrl and videoUrl."
  source: String @deprecated(reason: "Use audioUrl and videoUrl.")
  "State, province or region (null: no geocoder)."
  state: String
  "Detections per species by hour of the day in the station's time zone (hours with no detections are left out)."
  timeOfDayDetectionCounts(${PERIOD_ARG}
    "Only this species."
    speciesId: ID
  ): [BinnedSpeciesCount!]!
  "IANA time zone, e.g. Europe/Berlin."
  timezone: String!
  "Species with the most detections in the period."
  topSpecies(
    "At most this many (1 to 100; default 10)."
    limit: Int
    "Skip this many (default 0)."
    offset: Int${PERIOD_ARG}
  ): [SpeciesCount!]!
  "analyzerpi, puc, mobile, stream_video or stream_audio."
  type: String!
  videoUrl: String
  "Weather at the station (the local service has no source: null)."
  weather: WeatherReading
}

type StationEdge {
  cursor: String!
  node: Station
}

type StationConnection {
  edges: [StationEdge]
  nodes: [Station]
  pageInfo: PageInfo!
  totalCount: Int!
}

"""
A sighting by a person with the analyzer's phone app. The local service's reading: the detections
of stations of type mobile.
"""
type Sighting {
  coords: Coordinates!
  id: ID!
  score: Float!
  species: Species!
  speciesId: ID!
  timestamp: ISO8601DateTime
}

type SightingEdge {
  cursor: String!
  node: Sighting
}

type SightingConnection {
  edges: [SightingEdge]
  nodes: [Sighting]
  pageInfo: PageInfo!
  totalCount: Int!
}

type Counts {
  "Sightings (detections of mobile stations) in the period, by species and box; station filters do not apply."
  analyzer: Int
  breakdown: CountsBreakdown!
  detections: Int!
  species: Int!
  "Stations with at least one matching detection."
  stations: Int!
}

type CountsBreakdown {
  "Stations with matching detections, per station type."
  stations: [Count!]!
}

"A number of things of one type. The spec does not show the fields of Count; this local service uses these."
type Count {
  count: Int!
  type: String!
}

type SpeciesCount {
  averageProbability: Float
  breakdown: SpeciesCountBreakdown
  count: Int!
  species: Species
  speciesId: ID!
}

"Detections by calculated certainty."
type SpeciesCountBreakdown {
  almostCertain: Int
  veryLikely: Int
  uncertain: Int
  unlikely: Int
}

type SpeciesCountBin {
  count: Int!
  key: SpeciesCountKey!
}

type BinnedSpeciesCount {
  bins: [SpeciesCountBin!]!
  "Detections in all bins."
  count: Int!
  species: Species!
  speciesId: ID!
}

"Detections of one UTC day."
type BinnedSpeciesSummaryCount {
  "Per species, most detections first."
  counts: [SummarySpeciesCount!]!
  date: ISO8601Date!
  dayOfYear: Int!
  total: Int!
}

"A species' detections on one day. The spec does not show the fields of SummarySpeciesCount; this local service uses these."
type SummarySpeciesCount {
  count: Int!
  species: Species!
  speciesId: ID!
}

type NewDetectionPayload {
  detection: Detection!
}
`;
