import {
  BOX_ARGS,
  DETECTION_EXTRA_ARGS,
  DETECTION_LIST_FILTERS,
  FILTER_GROUP_F,
  PAGE_ARGS,
  PERIOD_ARG,
  STATION_FILTERS,
} from './arguments.js';

/** SDL of the root types: every query of the spec's table and the `newDetection` subscription. */
export const OPERATIONS_SDL = /* GraphQL */ `
type Query {
  "Species by id, in the order given (unknown ids are left out; at most 1000 ids)."
  allSpecies(${PAGE_ARGS}
    ids: [ID!]!
  ): SpeciesConnection
  "Sightings of people with the analyzer's phone app (here: detections of mobile stations), newest first."
  analyzerSightings(${PAGE_ARGS}
    "At most this many sightings in all (1 to 1000)."
    limit: Int
    "Skip this many sightings first."
    offset: Int${PERIOD_ARG}
    speciesId: ID${BOX_ARGS}
  ): SightingConnection!
  "Detections, species and stations in the period."
  counts(${PERIOD_ARG}
    speciesId: ID
    stationIds: [ID!]
    stationTypes: [String!]${BOX_ARGS}
  ): Counts!
  "Detections per UTC day, oldest first, each with its species counts."
  dailyDetectionCounts(${PERIOD_ARG}
    speciesIds: [ID!]
    stationIds: [ID!]
  ): [BinnedSpeciesSummaryCount!]!
  "Detections of all stations, newest first (see sortBy)."
  detections(${PAGE_ARGS}${PERIOD_ARG}
    "Only detections of this species."
    speciesId: ID${DETECTION_LIST_FILTERS}${STATION_FILTERS}${BOX_ARGS}${DETECTION_EXTRA_ARGS}
    "Only the latest matching detection of each station."
    uniqueStations: Boolean
  ): DetectionConnection!
  "Species whose common or scientific name contains the query: exact matches first, then names starting with it, then the rest by common name."
  searchSpecies(${PAGE_ARGS}
    "Part of a common or scientific name."
    query: String
    "ISO 639-1 code of the query's language; the local catalog holds one language, so it does not change the result."
    searchLocale: String
    "At most this many matches in all (1 to 1000)."
    limit: Int
  ): SpeciesConnection
  "One species, by id or by exact scientific name (case-insensitive)."
  species(id: ID, scientificName: String): Species
  "One station by id (any station, public or not)."
  station(id: ID!): Station
  "Public stations: active and without location privacy. By id."
  stations(${PAGE_ARGS}
    "Part of the station's name."
    query: String
    "Only stations with a detection in this window (no time filter when left out)."
    period: InputDuration${BOX_ARGS}
  ): StationConnection!
  "Detections per species by hour of the day in each station's time zone."
  timeOfDayDetectionCounts(${PERIOD_ARG}
    speciesId: ID
    stationIds: [ID!]${FILTER_GROUP_F}${BOX_ARGS}
  ): [BinnedSpeciesCount!]!
  "Species with the most sightings (detections of mobile stations) in the period."
  topAnalyzerSpecies(
    "At most this many (1 to 100; default 10)."
    limit: Int
    "Skip this many (default 0)."
    offset: Int${PERIOD_ARG}
    speciesId: ID${BOX_ARGS}
  ): [SpeciesCount!]!
  "Species with the most detections in the period."
  topSpecies(
    "At most this many (1 to 100; default 10)."
    limit: Int
    "Skip this many (default 0)."
    offset: Int${PERIOD_ARG}
    speciesId: ID
    stationTypes: [String!]
    stationIds: [ID!]${BOX_ARGS}
  ): [SpeciesCount!]!
}

type Subscription {
  "Each new detection matching the filters, within a second of being stored."
  newDetection(${DETECTION_LIST_FILTERS}${STATION_FILTERS}
  ): NewDetectionPayload!
}
`;
