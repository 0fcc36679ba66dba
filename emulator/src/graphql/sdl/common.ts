/**
 * SDL of the scalars, the shared input types and the connection plumbing. Types the
 * spec names without showing their fields (Coordinates, InputLocation, Count, ...)
 * carry a description saying that their fields are this local service's choice.
 */
export const COMMON_SDL = /* GraphQL */ `
"""
A whole number that may exceed the 32-bit range of Int, encoded as a string (e.g. "68719476736").
"""
scalar BigInt

"""
A calendar date, ISO 8601 \`YYYY-MM-DD\` (e.g. "2025-06-01"). Dates in arguments are read in UTC.
"""
scalar ISO8601Date

"""
A point in time, ISO 8601 with milliseconds and a UTC offset (e.g. "2025-06-01T05:30:00.000+02:00").
Detection, soundscape and station timestamps are shown in the station's time zone.
"""
scalar ISO8601DateTime

"""
Untyped JSON.
"""
scalar JSON

"""
The key of a count bin: a Float (hour of the day, 0 to 23, in the station's time zone) for
time-of-day counts, or an ISO 8601 timestamp (start of the bin) for counts over time.
"""
scalar SpeciesCountKey

"""
Relay page information of a connection. Cursors are opaque strings; pass \`endCursor\` as
\`after\` with \`first\` to page forward, \`startCursor\` as \`before\` with \`last\` to page back.
"""
type PageInfo {
  endCursor: String
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
}

"""
A time window. Either \`count\` and \`unit\` (the last \`count\` units up to now; unit one of hour,
day, week, month, year; count defaults to 1, unit to day), or \`from\` and/or \`to\` (whole UTC
days, both inclusive). Where a \`period\` argument is left out, the last 24 hours are used
(\`stations\` is the exception: without a period it does not filter by time).
"""
input InputDuration {
  "Number of units (1 or more)."
  count: Int
  "hour, day, week, month or year."
  unit: String
  "First day of the window (inclusive, UTC)."
  from: ISO8601Date
  "Last day of the window (inclusive, UTC)."
  to: ISO8601Date
}

"""
A corner of a bounding box (\`ne\`: north-east, \`sw\`: south-west). The spec does not show the fields
of InputLocation; this local service uses these two. Both corners are inclusive; a box whose
\`sw.lon\` is greater than its \`ne.lon\` crosses the antimeridian.
"""
input InputLocation {
  "Latitude in degrees, -90 to 90."
  lat: Float!
  "Longitude in degrees, -180 to 180."
  lon: Float!
}

"""
A position in degrees (WGS 84). The spec does not show the fields of Coordinates; this local
service uses these two. Coordinates of a station with location privacy are rounded to 0.1 degree.
"""
type Coordinates {
  lat: Float!
  lon: Float!
}
`;
