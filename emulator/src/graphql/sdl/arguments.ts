/**
 * Argument lists that several fields share, spliced into the SDL so that every
 * field offering them spells them the same way.
 */

/** Relay cursors; `first`/`last` are 0 to 100, 20 by default. */
export const PAGE_ARGS = `
    "Returns the items after this cursor."
    after: String
    "Returns the items before this cursor."
    before: String
    "Returns the first n items (0 to 100; default 20)."
    first: Int
    "Returns the last n items (0 to 100)."
    last: Int`;

/** The spec's filter group F: Gt/Lt are strict, Gte/Lte inclusive; timeOfDay bounds are hours 0-23 in the station's time zone. */
export const FILTER_GROUP_F = `
    "Score strictly greater than."
    scoreGt: Float
    "Score strictly less than."
    scoreLt: Float
    "Score greater than or equal to."
    scoreGte: Float
    "Score less than or equal to."
    scoreLte: Float
    "Confidence strictly greater than."
    confidenceGt: Float
    "Confidence strictly less than."
    confidenceLt: Float
    "Confidence greater than or equal to."
    confidenceGte: Float
    "Confidence less than or equal to."
    confidenceLte: Float
    "Probability strictly greater than (detections without a probability never match a probability bound)."
    probabilityGt: Float
    "Probability strictly less than."
    probabilityLt: Float
    "Probability greater than or equal to."
    probabilityGte: Float
    "Probability less than or equal to."
    probabilityLte: Float
    "Hour of the day (0-23, in the station's time zone) the detection is at or after; with timeOfDayLte below it the window wraps past midnight."
    timeOfDayGte: Int
    "Hour of the day (0-23, in the station's time zone) the detection is at or before (the whole hour counts)."
    timeOfDayLte: Int`;

/** The bounding box corners. */
export const BOX_ARGS = `
    "North-east corner of a bounding box (give sw too)."
    ne: InputLocation
    "South-west corner of a bounding box (give ne too)."
    sw: InputLocation`;

export const PERIOD_ARG = `
    "Time window; the last 24 hours when left out."
    period: InputDuration`;

/** Filters of the station-independent detection listings and of the subscription. */
export const DETECTION_LIST_FILTERS = `
    "Only detections of these species."
    speciesIds: [ID!]
    "Only species of these classifications (avian, amphibian, reptile, mammal, bat, insect)."
    classifications: [String!]
    "Only detections with this recording mode (live, recorded, analyzerpi)."
    recordingModes: [String!]${FILTER_GROUP_F}
    "Show detections below the station's own minimum confidence, probability and score too (by default each station's minimums apply)."
    overrideStationFilters: Boolean`;

/** Filters on the station a detection belongs to. */
export const STATION_FILTERS = `
    "Only detections of these stations."
    stationIds: [ID!]
    "Only stations of these types (analyzerpi, puc, mobile, stream_video, stream_audio)."
    stationTypes: [String!]
    "Only stations on these continents (Africa, Antarctica, Asia, Europe, North America, Oceania, South America; derived from the station's time zone)."
    continents: [String!]
    "Only stations in these countries (the local service stores no country, so a non-empty list matches no station)."
    countries: [String!]`;

/** Arguments of the detection listings beyond the shared filters. */
export const DETECTION_EXTRA_ARGS = `
    "Only detections with an up-vote (1) or a down-vote (-1); the local service stores no votes, so this matches none."
    vote: Int
    "Order: timestamp (newest first, the default), score or confidence (highest first, then newest)."
    sortBy: String
    "Only detections whose soundscape (audio) was uploaded."
    validSoundscape: Boolean
    "true: only detections within the 2024 solar eclipse path (the local service has no path data, so none match)."
    eclipse: Boolean`;
