/**
 * What the GraphQL interface says about where a station is. The local service stores
 * coordinates and an IANA time zone, no geocoded place: the continent is read from the
 * zone's area (America/* split by the South American zone names), country, state and
 * a human-readable location are unknown (null).
 */

export const CONTINENTS = ['Africa', 'Antarctica', 'Asia', 'Europe', 'North America', 'Oceania', 'South America'] as const;
export type Continent = (typeof CONTINENTS)[number];

const SOUTH_AMERICAN_ZONES = new Set([
  'Asuncion', 'Bahia', 'Belem', 'Boa_Vista', 'Bogota', 'Campo_Grande', 'Caracas', 'Cayenne', 'Cuiaba', 'Eirunepe',
  'Fortaleza', 'Guayaquil', 'Guyana', 'La_Paz', 'Lima', 'Maceio', 'Manaus', 'Montevideo', 'Noronha', 'Paramaribo',
  'Porto_Velho', 'Punta_Arenas', 'Recife', 'Rio_Branco', 'Santarem', 'Santiago', 'Sao_Paulo',
]);

/** Zones whose area names an ocean, placed by the land they belong to. */
const OCEAN_ZONES: Record<string, Continent> = {
  'Atlantic/Azores': 'Europe',
  'Atlantic/Canary': 'Europe',
  'Atlantic/Faroe': 'Europe',
  'Atlantic/Madeira': 'Europe',
  'Atlantic/Reykjavik': 'Europe',
  'Atlantic/Bermuda': 'North America',
  'Atlantic/Cape_Verde': 'Africa',
  'Atlantic/St_Helena': 'Africa',
  'Atlantic/South_Georgia': 'South America',
  'Atlantic/Stanley': 'South America',
  'Indian/Chagos': 'Asia',
  'Indian/Christmas': 'Asia',
  'Indian/Cocos': 'Asia',
  'Indian/Maldives': 'Asia',
  'Pacific/Easter': 'South America',
  'Pacific/Galapagos': 'South America',
  'Arctic/Longyearbyen': 'Europe',
};

const AREAS: Record<string, Continent> = {
  Africa: 'Africa',
  Antarctica: 'Antarctica',
  Asia: 'Asia',
  Australia: 'Oceania',
  Europe: 'Europe',
  Indian: 'Africa',
  Pacific: 'Oceania',
};

export function continentOf(timezone: string): Continent | null {
  const known = OCEAN_ZONES[timezone];
  if (known) return known;
  const [area = '', ...rest] = timezone.split('/');
  if (area === 'America') {
    return rest[0] === 'Argentina' || SOUTH_AMERICAN_ZONES.has(rest.join('/')) ? 'South America' : 'North America';
  }
  return AREAS[area] ?? null;
}

/** The local service has no country for a station. */
export function countryOf(): string | null {
  return null;
}

/** Coordinates as the public sees them: rounded to 0.1 degree (about 11 km) for a station with location privacy. */
export function publicCoords(lat: number, lon: number, locationPrivacy: boolean): { lat: number; lon: number } {
  return locationPrivacy ? { lat: roundTenth(lat), lon: roundTenth(lon) } : { lat, lon };
}

/** Half away from zero, like SQLite's ROUND (the box filter rounds in SQL). */
function roundTenth(value: number): number {
  return (Math.sign(value) * Math.round(Math.abs(value) * 10)) / 10;
}

/** SQL of the same rounding, over `d` (detections) joined with `st` (stations). */
export const PUBLIC_LAT_SQL = 'CASE WHEN st.location_privacy = 1 THEN ROUND(d.lat, 1) ELSE d.lat END';
export const PUBLIC_LON_SQL = 'CASE WHEN st.location_privacy = 1 THEN ROUND(d.lon, 1) ELSE d.lon END';
