import { PAGE_ARGS, PERIOD_ARG } from './arguments.js';

const HISTORIES = ['Accel', 'Environment', 'Light', 'Location', 'Mag', 'System'] as const;

function historyConnection(name: string): string {
  return `
type ${name}ReadingEdge {
  cursor: String!
  node: ${name}Reading
}

type ${name}ReadingConnection {
  edges: [${name}ReadingEdge]
  nodes: [${name}Reading]
  pageInfo: PageInfo!
  totalCount: Int!
}
`;
}

function historyField(name: string): string {
  const field = `${name[0].toLowerCase()}${name.slice(1)}History`;
  return `  "${name} readings over time (empty on the local service)."
  ${field}(${PAGE_ARGS}${PERIOD_ARG}
  ): ${name}ReadingConnection!`;
}

/**
 * SDL of the readings the local service has no source for: sensors, weather and air
 * pollution. The types exist so that clients can ask for them; the answers are null
 * or empty connections, never made-up numbers.
 */
export const READINGS_SDL = /* GraphQL */ `
"Sensor readings of a station (puc hardware). The local service has none: latest readings are null, histories empty."
type Sensors {
  accel: AccelReading
  environment: EnvironmentReading
  light: LightReading
  location: LocationReading
  mag: MagReading
  system: SystemReading
${HISTORIES.map(historyField).join('\n')}
}

type AccelReading {
  timestamp: ISO8601DateTime
  x: Float
  y: Float
  z: Float
}

type MagReading {
  timestamp: ISO8601DateTime
  x: Float
  y: Float
  z: Float
}

type EnvironmentReading {
  aqi: Float
  barometricPressure: Float
  eco2: Float
  humidity: Float
  soundPressureLevel: Float
  temperature: Float
  timestamp: ISO8601DateTime
  voc: Float
}

type LightReading {
  clear: Int
  f1: Int
  f2: Int
  f3: Int
  f4: Int
  f5: Int
  f6: Int
  f7: Int
  f8: Int
  nir: Int
  timestamp: ISO8601DateTime
}

type LocationReading {
  altitude: Float
  lat: Float
  lon: Float
  satellites: Int
  timestamp: ISO8601DateTime
}

"The spec does not show the types of sdAvailable and sdCapacity; this local service uses BigInt (bytes)."
type SystemReading {
  batteryVoltage: Float
  firmware: String
  powerSource: String
  sdAvailable: BigInt
  sdCapacity: BigInt
  timestamp: ISO8601DateTime
  uploadingCompleted: Int
  uploadingTotal: Int
  wifiRssi: Int
}
${HISTORIES.map(historyConnection).join('')}
"Air quality. Concentrations in micrograms per cubic metre."
type AirPollutionReading {
  "1 good, 2 fair, 3 moderate, 4 poor, 5 very poor."
  aqi: Int!
  co: Float!
  coords: Coordinates!
  nh3: Float!
  no: Float!
  no2: Float!
  o3: Float!
  pm10: Float!
  pm2_5: Float!
  so2: Float!
  timestamp: ISO8601DateTime
}

type WeatherReading {
  "Percent."
  cloudiness: Int!
  coords: Coordinates!
  "Weather group."
  description: String!
  "Kelvin."
  feelsLike: Float!
  "hPa."
  groundLevel: Int
  "Percent."
  humidity: Int!
  "hPa."
  pressure: Int!
  "mm."
  rain1h: Float
  "mm."
  rain3h: Float
  "hPa."
  seaLevel: Int
  "mm."
  snow1h: Float
  "mm."
  snow3h: Float
  sunrise: ISO8601DateTime!
  sunset: ISO8601DateTime!
  "Kelvin."
  temp: Float!
  "Kelvin."
  tempMax: Float!
  "Kelvin."
  tempMin: Float!
  timestamp: ISO8601DateTime
  "Metres."
  visibility: Int!
  "Degrees."
  windDir: Int!
  "m/s."
  windGust: Float
  "m/s."
  windSpeed: Float!
}
`;
