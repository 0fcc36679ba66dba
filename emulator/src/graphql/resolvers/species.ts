import type { SpeciesRecord } from '../../store/index.js';
import { speciesRef } from '../../present/species.js';
import { readCriteria, type CriteriaArgs } from '../args/criteria-args.js';
import type { PageArgs } from '../connection.js';
import type { GqlContext } from '../context.js';
import { encodeId } from '../ids.js';
import { stationCounts, timeBins } from '../queries/aggregates.js';
import { detectionConnection, readInterval, timeBinViews, clampedWhole } from './shared.js';
import { none, type TypeResolvers } from './types.js';
import type { BinnedView, SpeciesNumberView, StationCountView } from './views.js';

/** The language of the local species catalog (the analyzer's English labels). */
export const CATALOG_LOCALE = 'en';

function criteriaFor(species: SpeciesRecord, args: CriteriaArgs, ctx: GqlContext) {
  return { ...readCriteria(args, { nowMs: ctx.nowMs }), speciesIds: [species.id] };
}

export const speciesResolvers: TypeResolvers<SpeciesRecord> = {
  id: (s) => encodeId('Species', s.id),
  imageUrl: (s, _args, ctx) => speciesRef(s, ctx.emulator.mediaUrl).imageUrl,
  thumbnailUrl: (s, _args, ctx) => speciesRef(s, ctx.emulator.mediaUrl).thumbnailUrl,
  // The catalog has names, codes and colours only; the encyclopedia, registry, credits and maps are unknown here.
  serviceUrl: none,
  registryCode: none,
  registryUrl: none,
  imageCredit: none,
  imageLicense: none,
  imageLicenseUrl: none,
  mlUrl: none,
  predictionArea: none,
  range: none,
  encyclopediaSummary: none,
  encyclopediaUrl: none,
  detectionCounts: (s, args: CriteriaArgs & { interval?: string | null }, ctx): BinnedView => {
    const [binned] = timeBinViews(timeBins(ctx, criteriaFor(s, args, ctx), readInterval(args.interval)));
    return binned ?? { speciesId: s.id, count: 0, bins: [] };
  },
  stations: (s, args: CriteriaArgs & { limit?: number | null }, ctx): StationCountView[] =>
    stationCounts(ctx, criteriaFor(s, args, ctx), clampedWhole(args.limit, 'limit', 1, 100, 20)),
  topDetections: (s, args: CriteriaArgs & PageArgs, ctx) =>
    detectionConnection(ctx, criteriaFor(s, args, ctx), args, { order: 'score', onePerStation: 'best' }),
  translations: (s, args: { locales?: readonly string[] | null }) =>
    !args.locales?.length || args.locales.includes(CATALOG_LOCALE)
      ? [{ commonName: s.commonName, locale: CATALOG_LOCALE, encyclopediaSummary: null, encyclopediaUrl: null }]
      : [],
};

/** Parents that carry a species id: SpeciesCount, BinnedSpeciesCount, SummarySpeciesCount, Probability. */
export const speciesNumberResolvers: TypeResolvers<SpeciesNumberView> = {
  speciesId: (v) => encodeId('Species', v.speciesId),
  species: (v, _args, ctx) => ctx.species(v.speciesId) ?? null,
};

export const stationCountResolvers: TypeResolvers<StationCountView> = {
  stationId: (v) => encodeId('Station', v.stationId),
  station: (v, _args, ctx) => ctx.station(v.stationId) ?? null,
};
