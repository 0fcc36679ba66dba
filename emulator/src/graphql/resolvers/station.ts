import type { StationRecord } from '../../store/index.js';
import { probabilityOf } from '../../scoring.js';
import { formatTimestamp } from '../../time.js';
import { readCriteria, type CriteriaArgs } from '../args/criteria-args.js';
import { readPeriod, type InputDuration } from '../args/period.js';
import { emptyConnection, type PageArgs } from '../connection.js';
import type { GqlContext } from '../context.js';
import { continentOf } from '../geo.js';
import { decodeIds, encodeId } from '../ids.js';
import { speciesCounts, timeBins, timeOfDayBins, totals } from '../queries/aggregates.js';
import type { DetectionCriteria } from '../queries/criteria.js';
import { readOrder } from '../queries/detections.js';
import {
  detectionConnection,
  hourBinViews,
  readInterval,
  speciesCountView,
  timeBinViews,
  topPage,
} from './shared.js';
import { none, type TypeResolvers } from './types.js';

/** The station's own detections; its minimums apply unless `overrideStationFilters`. */
function criteriaFor(station: StationRecord, args: CriteriaArgs, ctx: GqlContext): DetectionCriteria {
  return { ...readCriteria(args, { nowMs: ctx.nowMs }), stationIds: [station.id] };
}

function timestampOrNull(ms: number | null | undefined, zone: string): string | null {
  return ms === null || ms === undefined ? null : formatTimestamp(ms, zone);
}

export const stationResolvers: TypeResolvers<StationRecord> = {
  id: (st) => encodeId('Station', st.id),
  continent: (st) => continentOf(st.timezone),
  coords: (st) => (st.locationPrivacy ? null : { lat: st.lat, lon: st.lon }),
  // No source on the local service (see the SDL descriptions).
  airPollution: none,
  audioUrl: none,
  country: none,
  eclipse: none,
  location: none,
  notes: none,
  source: none,
  state: none,
  videoUrl: none,
  weather: none,
  hasProbabilities: () => true,
  portableDetections: (st) => st.type === 'mobile',
  sensors: (st) => (st.type === 'puc' ? {} : null),
  counts: (st, args: CriteriaArgs, ctx) => {
    const { detections, species } = totals(ctx, criteriaFor(st, args, ctx));
    return { detections, species };
  },
  detectionCounts: (st, args: CriteriaArgs & { interval?: string | null }, ctx) =>
    timeBinViews(timeBins(ctx, criteriaFor(st, args, ctx), readInterval(args.interval))),
  timeOfDayDetectionCounts: (st, args: CriteriaArgs, ctx) => hourBinViews(timeOfDayBins(ctx, criteriaFor(st, args, ctx))),
  topSpecies: (st, args: CriteriaArgs & { limit?: number | null; offset?: number | null }, ctx) =>
    speciesCounts(ctx, criteriaFor(st, args, ctx), topPage(args)).map(speciesCountView),
  detections: (st, args: CriteriaArgs & PageArgs & { sortBy?: string | null }, ctx) =>
    detectionConnection(ctx, criteriaFor(st, args, ctx), args, { order: readOrder(args.sortBy) }),
  earliestDetectionAt: (st, _args, ctx) => {
    const row = ctx.emulator.store.db
      .prepare<[number], { t: number | null }>('SELECT MIN(timestamp_ms) AS t FROM detections WHERE station_id = ?')
      .get(st.id);
    return timestampOrNull(row?.t, st.timezone);
  },
  latestDetectionAt: (st, _args, ctx) => timestampOrNull(ctx.emulator.store.detections.latestTimestamp(st.id), st.timezone),
  probabilities: (st, args: { speciesIds?: readonly string[] | null }, ctx) => {
    const wanted = decodeIds(args.speciesIds, 'Species', 'speciesIds');
    const ids =
      wanted ??
      ctx.emulator.store.db
        .prepare<[number], { id: number }>('SELECT DISTINCT species_id AS id FROM detections WHERE station_id = ?')
        .all(st.id)
        .map((r) => r.id);
    return ids
      .flatMap((id) => {
        const species = ctx.species(id);
        return species ? [{ speciesId: id, probability: probabilityOf(ctx.emulator.seed, species.scientificName, st.lat, st.lon) }] : [];
      })
      .sort((a, b) => b.probability - a.probability || a.speciesId - b.speciesId);
  },
};

type HistoryArgs = PageArgs & { period?: InputDuration | null };

/** Sensors: no readings on the local service. Histories check their arguments, then are empty. */
function emptyHistory(_parent: object, args: HistoryArgs, ctx: GqlContext) {
  readPeriod(args.period, ctx.nowMs);
  return emptyConnection(args);
}

export const sensorsResolvers: TypeResolvers<object> = {
  accel: none,
  environment: none,
  light: none,
  location: none,
  mag: none,
  system: none,
  accelHistory: emptyHistory,
  environmentHistory: emptyHistory,
  lightHistory: emptyHistory,
  locationHistory: emptyHistory,
  magHistory: emptyHistory,
  systemHistory: emptyHistory,
};
