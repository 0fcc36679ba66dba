import type { StationRecord } from '../../store/index.js';
import { likePattern } from '../../store/species.js';
import type { TimeWindow } from '../args/period.js';
import { sqlSource, type PageSource } from '../connection.js';
import type { GqlContext } from '../context.js';
import type { Box } from './criteria.js';
import { compileCriteria } from './criteria.js';

/**
 * The `stations` listing. "Public" on the local service means: active (its token is
 * accepted) and without location privacy. Ordered by id.
 */
export const PUBLIC_STATION_SQL = 'o.active = 1 AND o.location_privacy = 0';

export interface StationListFilter {
  query?: string;
  /** Only stations with a detection (meeting the station's minimums) in the window. */
  window?: TimeWindow;
  box?: Box;
}

export function publicStations(ctx: GqlContext, filter: StationListFilter): PageSource<StationRecord> {
  const clauses = [PUBLIC_STATION_SQL];
  const params: Record<string, unknown> = {};
  const query = filter.query?.trim();
  if (query) {
    clauses.push(`o.name LIKE @name ESCAPE '\\'`);
    params.name = likePattern(query);
  }
  if (filter.window && (filter.window.fromMs !== undefined || filter.window.toMs !== undefined)) {
    const { from, where, params: p } = compileCriteria({ window: filter.window, stationMinimums: true }, ctx.allStations);
    clauses.push(`EXISTS (SELECT 1 FROM ${from} WHERE d.station_id = o.id AND ${where})`);
    Object.assign(params, p);
  }
  if (filter.box) {
    const { ne, sw } = filter.box;
    clauses.push('o.lat BETWEEN @swLat AND @neLat');
    clauses.push(sw.lon <= ne.lon ? 'o.lon BETWEEN @swLon AND @neLon' : '(o.lon >= @swLon OR o.lon <= @neLon)');
    Object.assign(params, { swLat: sw.lat, neLat: ne.lat, swLon: sw.lon, neLon: ne.lon });
  }
  const byId = (row: { id: number }) => ctx.station(row.id)!;
  return sqlSource<{ id: number; _k0: number }, StationRecord>(ctx.emulator.store.db, {
    sql: `SELECT o.id AS id, o.id AS _k0 FROM stations o WHERE ${clauses.join(' AND ')}`,
    params,
    keyLength: 1,
    descending: false,
    map: byId,
  });
}
