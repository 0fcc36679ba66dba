import type { SpeciesRecord } from '../../store/index.js';
import { readBox, readCriteria, type CriteriaArgs, type LocationArg } from '../args/criteria-args.js';
import { readPeriod, type InputDuration } from '../args/period.js';
import { arraySource, paginate, type PageArgs } from '../connection.js';
import type { GqlContext } from '../context.js';
import { GraphqlInputError } from '../errors.js';
import { decodeId } from '../ids.js';
import { dailySummaries, speciesCounts, stationsByType, timeOfDayBins, totals } from '../queries/aggregates.js';
import type { DetectionCriteria } from '../queries/criteria.js';
import { readOrder } from '../queries/detections.js';
import { publicStations } from '../queries/public-stations.js';
import { speciesSearch } from '../queries/species-search.js';
import { detectionConnection, hourBinViews, speciesCountView, topPage, clampedWhole } from './shared.js';
import type { TypeResolvers } from './types.js';

/** At most this many ids in `allSpecies(ids:)`. */
export const MAX_SPECIES_IDS = 1000;

/** The local service's sightings: detections of mobile stations (station filters and types do not apply). */
function sightingCriteria(args: CriteriaArgs, ctx: GqlContext): DetectionCriteria {
  return { ...readCriteria(args, { nowMs: ctx.nowMs }), stationTypes: ['mobile'] };
}

export const queryResolvers: TypeResolvers<unknown> = {
  allSpecies: (_root, args: PageArgs & { ids: readonly string[] }, ctx) => {
    if (args.ids.length > MAX_SPECIES_IDS) {
      throw new GraphqlInputError(`ids: at most ${MAX_SPECIES_IDS} ids, got ${args.ids.length}`);
    }
    const species = args.ids
      .map((id, i) => ctx.species(decodeId(id, 'Species', `ids[${i}]`)))
      .filter((s): s is SpeciesRecord => s !== undefined);
    return paginate(arraySource(species), args);
  },

  analyzerSightings: (_root, args: CriteriaArgs & PageArgs & { limit?: number | null; offset?: number | null }, ctx) =>
    detectionConnection(ctx, sightingCriteria(args, ctx), args, {
      order: 'timestamp',
      bounds: {
        limit: clampedWhole(args.limit, 'limit', 1, 1000),
        offset: clampedWhole(args.offset, 'offset', 0, 2_147_483_647),
      },
    }),

  counts: (_root, args: CriteriaArgs, ctx) => {
    const criteria = readCriteria(args, { nowMs: ctx.nowMs });
    const { detections, species, stations } = totals(ctx, criteria);
    const analyzer = totals(ctx, { ...sightingCriteria(args, ctx), stationIds: undefined }).detections;
    return { detections, species, stations, analyzer, breakdown: { stations: stationsByType(ctx, criteria) } };
  },

  dailyDetectionCounts: (_root, args: CriteriaArgs, ctx) => dailySummaries(ctx, readCriteria(args, { nowMs: ctx.nowMs })),

  detections: (_root, args: CriteriaArgs & PageArgs & { sortBy?: string | null; uniqueStations?: boolean | null }, ctx) =>
    detectionConnection(ctx, readCriteria(args, { nowMs: ctx.nowMs }), args, {
      order: readOrder(args.sortBy),
      onePerStation: args.uniqueStations ? 'latest' : undefined,
    }),

  searchSpecies: (_root, args: PageArgs & { query?: string | null; searchLocale?: string | null; limit?: number | null }, ctx) =>
    paginate(speciesSearch(ctx, args.query ?? undefined, clampedWhole(args.limit, 'limit', 1, 1000)), args),

  species: (_root, args: { id?: string | null; scientificName?: string | null }, ctx) => {
    if (args.id != null) {
      const species = ctx.species(decodeId(args.id, 'Species', 'id'));
      if (species && args.scientificName != null && species.scientificName.toLowerCase() !== args.scientificName.trim().toLowerCase()) {
        return null;
      }
      return species ?? null;
    }
    if (args.scientificName != null) return ctx.emulator.store.species.byScientificName(args.scientificName) ?? null;
    throw new GraphqlInputError('species: give id or scientificName');
  },

  station: (_root, args: { id: string }, ctx) => ctx.station(decodeId(args.id, 'Station', 'id')) ?? null,

  stations: (_root, args: PageArgs & { query?: string | null; period?: InputDuration | null; ne?: LocationArg | null; sw?: LocationArg | null }, ctx) =>
    paginate(
      publicStations(ctx, {
        query: args.query ?? undefined,
        window: readPeriod(args.period, ctx.nowMs, { optional: true }),
        box: readBox(args),
      }),
      args,
    ),

  timeOfDayDetectionCounts: (_root, args: CriteriaArgs, ctx) =>
    hourBinViews(timeOfDayBins(ctx, readCriteria(args, { nowMs: ctx.nowMs }))),

  topAnalyzerSpecies: (_root, args: CriteriaArgs & { limit?: number | null; offset?: number | null }, ctx) =>
    speciesCounts(ctx, sightingCriteria(args, ctx), topPage(args)).map(speciesCountView),

  topSpecies: (_root, args: CriteriaArgs & { limit?: number | null; offset?: number | null }, ctx) =>
    speciesCounts(ctx, readCriteria(args, { nowMs: ctx.nowMs }), topPage(args)).map(speciesCountView),
};
