import type { DetectionRecord } from '../../store/index.js';
import { formatTimestamp } from '../../time.js';
import { paginate, type Connection, type PageArgs } from '../connection.js';
import type { GqlContext } from '../context.js';
import { GraphqlInputError } from '../errors.js';
import { BIN_INTERVALS, type BinInterval, type BinnedSpecies, type SpeciesCountRow } from '../queries/aggregates.js';
import type { DetectionCriteria } from '../queries/criteria.js';
import { detectionList, type DetectionListOptions } from '../queries/detections.js';
import type { BinnedView, SpeciesCountView } from './views.js';

export type DetectionConnection = Connection<DetectionRecord> & { speciesCount: () => number };

export function detectionConnection(
  ctx: GqlContext,
  criteria: DetectionCriteria,
  args: PageArgs,
  options: DetectionListOptions,
): DetectionConnection {
  const list = detectionList(ctx, criteria, options);
  const connection = paginate(list.source, args);
  let speciesCount: number | undefined;
  return { ...connection, speciesCount: () => (speciesCount ??= list.speciesCount()) };
}

/**
 * A whole number argument at least `min` (else refused) and at most `max` (a larger
 * value is clamped to `max`, as the real service does with list sizes), or its default.
 */
export function clampedWhole(value: number | null | undefined, argument: string, min: number, max: number, fallback: number): number;
export function clampedWhole(value: number | null | undefined, argument: string, min: number, max: number): number | undefined;
export function clampedWhole(value: number | null | undefined, argument: string, min: number, max: number, fallback?: number): number | undefined {
  if (value === null || value === undefined) return fallback;
  if (value < min) throw new GraphqlInputError(`${argument} must be ${min} or more, got ${value}`);
  return Math.min(value, max);
}

/** `limit` (1-100, larger clamped, default 10) and `offset` (0 or more) of the top-species lists. */
export function topPage(args: { limit?: number | null; offset?: number | null }): { limit: number; offset: number } {
  return {
    limit: clampedWhole(args.limit, 'limit', 1, 100, 10),
    offset: clampedWhole(args.offset, 'offset', 0, 2_147_483_647, 0),
  };
}

export function readInterval(value: string | null | undefined): BinInterval {
  const interval = (value ?? 'day').trim();
  if (!(interval in BIN_INTERVALS)) {
    throw new GraphqlInputError(`interval must be one of ${Object.keys(BIN_INTERVALS).join(', ')}, got ${JSON.stringify(value)}`);
  }
  return interval as BinInterval;
}

/** Time bins keyed by their start as an ISO 8601 timestamp (UTC). */
export function timeBinViews(binned: readonly BinnedSpecies[]): BinnedView[] {
  return binned.map((b) => ({ ...b, bins: b.bins.map((bin) => ({ key: formatTimestamp(bin.key, 'UTC'), count: bin.count })) }));
}

/** Time-of-day bins keyed by the hour (a Float on the wire). */
export function hourBinViews(binned: readonly BinnedSpecies[]): BinnedView[] {
  return binned.map((b) => ({ ...b, bins: b.bins.map((bin) => ({ key: bin.key, count: bin.count })) }));
}

export function speciesCountView(row: SpeciesCountRow): SpeciesCountView {
  return {
    speciesId: row.speciesId,
    count: row.count,
    averageProbability: row.averageProbability === null ? null : Math.round(row.averageProbability * 1000) / 1000,
    breakdown: {
      almostCertain: row.almostCertain,
      veryLikely: row.veryLikely,
      uncertain: row.uncertain,
      unlikely: row.unlikely,
    },
  };
}
