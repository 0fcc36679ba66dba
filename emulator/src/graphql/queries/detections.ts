import type { DetectionRecord } from '../../store/index.js';
import { sqlSource, type PageSource } from '../connection.js';
import type { GqlContext } from '../context.js';
import { GraphqlInputError } from '../errors.js';
import { compileCriteria, type DetectionCriteria } from './criteria.js';
import { toDetectionRecord, type DetectionRow } from './rows.js';

/** `sortBy` values; every order is descending and ends with the newest detection (then the id). */
export const DETECTION_ORDERS = ['timestamp', 'score', 'confidence'] as const;
export type DetectionOrder = (typeof DETECTION_ORDERS)[number];

const ORDER_KEYS: Record<DetectionOrder, string[]> = {
  timestamp: ['d.timestamp_ms', 'd.id'],
  score: ['d.score', 'd.timestamp_ms', 'd.id'],
  confidence: ['d.confidence', 'd.timestamp_ms', 'd.id'],
};

export function readOrder(sortBy: string | null | undefined): DetectionOrder {
  if (sortBy === null || sortBy === undefined) return 'timestamp';
  const order = sortBy.trim();
  if (!(DETECTION_ORDERS as readonly string[]).includes(order)) {
    throw new GraphqlInputError(`sortBy must be one of ${DETECTION_ORDERS.join(', ')}, got ${JSON.stringify(sortBy)}`);
  }
  return order as DetectionOrder;
}

export interface DetectionListOptions {
  order: DetectionOrder;
  /** Keep one detection per station: its latest (`uniqueStations`) or its best by score (`topDetections`). */
  onePerStation?: 'latest' | 'best';
  /** Skip `offset` matching detections and keep at most `limit` (analyzerSightings); pages are taken within these. */
  bounds?: { limit?: number; offset?: number };
}

export interface DetectionList {
  source: PageSource<DetectionRecord>;
  /** Distinct species among all matching detections. */
  speciesCount: () => number;
}

const PER_STATION_ORDER = {
  latest: 'd.timestamp_ms DESC, d.id DESC',
  best: 'd.score DESC, d.timestamp_ms DESC, d.id DESC',
} as const;

/** The matching detections as a pageable list (see connection.ts). */
export function detectionList(ctx: GqlContext, criteria: DetectionCriteria, options: DetectionListOptions): DetectionList {
  const { from, where, params } = compileCriteria(criteria, ctx.allStations);
  const keys = ORDER_KEYS[options.order];
  const keyColumns = keys.map((k, i) => `${k} AS _k${i}`).join(', ');
  let sql = options.onePerStation
    ? `SELECT * FROM (
         SELECT d.*, ${keyColumns},
                ROW_NUMBER() OVER (PARTITION BY d.station_id ORDER BY ${PER_STATION_ORDER[options.onePerStation]}) AS _rn
         FROM ${from} WHERE ${where}
       ) WHERE _rn = 1`
    : `SELECT d.*, ${keyColumns} FROM ${from} WHERE ${where}`;
  if (options.bounds && (options.bounds.limit !== undefined || options.bounds.offset !== undefined)) {
    const order = keys.map((_, i) => `_k${i} DESC`).join(', ');
    sql = `SELECT * FROM (${sql} ORDER BY ${order} LIMIT ${options.bounds.limit ?? -1} OFFSET ${options.bounds.offset ?? 0})`;
  }
  const db = ctx.emulator.store.db;
  return {
    source: sqlSource<DetectionRow, DetectionRecord>(db, {
      sql,
      params,
      keyLength: keys.length,
      descending: true,
      map: toDetectionRecord,
    }),
    speciesCount: () =>
      db.prepare<[Record<string, unknown>], { n: number }>(`SELECT COUNT(DISTINCT species_id) AS n FROM (${sql})`).get(params)!.n,
  };
}

/** True when the stored detection matches the criteria (the subscription's test, the same SQL as the listings). */
export function detectionMatches(ctx: GqlContext, detectionId: number, criteria: DetectionCriteria): boolean {
  const { from, where, params } = compileCriteria({ ...criteria, detectionId }, ctx.allStations);
  return ctx.emulator.store.db.prepare(`SELECT 1 FROM ${from} WHERE ${where}`).get(params) !== undefined;
}
