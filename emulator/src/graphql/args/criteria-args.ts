import { CLASSIFICATIONS, SOUNDSCAPE_MODES, STATION_TYPES } from '../../../../src/wire/types.js';
import { GraphqlInputError } from '../errors.js';
import { CONTINENTS } from '../geo.js';
import { decodeId, decodeIds } from '../ids.js';
import type { Box, DetectionCriteria, Range } from '../queries/criteria.js';
import { readPeriod, type InputDuration } from './period.js';

/** The spec's filter group F. */
export interface FilterGroupArgs {
  scoreGt?: number | null;
  scoreLt?: number | null;
  scoreGte?: number | null;
  scoreLte?: number | null;
  confidenceGt?: number | null;
  confidenceLt?: number | null;
  confidenceGte?: number | null;
  confidenceLte?: number | null;
  probabilityGt?: number | null;
  probabilityLt?: number | null;
  probabilityGte?: number | null;
  probabilityLte?: number | null;
  timeOfDayGte?: number | null;
  timeOfDayLte?: number | null;
}

export interface LocationArg {
  lat: number;
  lon: number;
}

/** Every detection-filtering argument any field takes; each field's SDL decides which can arrive. */
export interface CriteriaArgs extends FilterGroupArgs {
  period?: InputDuration | null;
  speciesId?: string | null;
  speciesIds?: readonly string[] | null;
  classifications?: readonly string[] | null;
  stationIds?: readonly string[] | null;
  stationTypes?: readonly string[] | null;
  continents?: readonly string[] | null;
  countries?: readonly string[] | null;
  recordingModes?: readonly string[] | null;
  ne?: LocationArg | null;
  sw?: LocationArg | null;
  vote?: number | null;
  validSoundscape?: boolean | null;
  eclipse?: boolean | null;
  overrideStationFilters?: boolean | null;
}

export interface CriteriaOptions {
  nowMs: number;
  /** No period means no time window (the subscription has no period at all). */
  periodOptional?: boolean;
}

const HOURS = { min: 0, max: 23 };

function words(values: readonly string[] | null | undefined, allowed: readonly string[] | null, argument: string): string[] | undefined {
  if (!values?.length) return undefined;
  return values.map((raw, i) => {
    const value = raw.trim();
    if (allowed && !allowed.includes(value)) {
      throw new GraphqlInputError(`${argument}[${i}]: ${JSON.stringify(raw)} is not one of ${allowed.join(', ')}`);
    }
    return value;
  });
}

function range(args: FilterGroupArgs, name: 'score' | 'confidence' | 'probability'): Range | undefined {
  const r: Range = {
    gt: args[`${name}Gt`] ?? undefined,
    lt: args[`${name}Lt`] ?? undefined,
    gte: args[`${name}Gte`] ?? undefined,
    lte: args[`${name}Lte`] ?? undefined,
  };
  return Object.values(r).some((v) => v !== undefined) ? r : undefined;
}

function hour(value: number | null | undefined, argument: string): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (value < HOURS.min || value > HOURS.max) {
    throw new GraphqlInputError(`${argument} must be an hour of the day from ${HOURS.min} to ${HOURS.max}, got ${value}`);
  }
  return value;
}

function corner(value: LocationArg, argument: string): LocationArg {
  if (value.lat < -90 || value.lat > 90) throw new GraphqlInputError(`${argument}.lat must be between -90 and 90, got ${value.lat}`);
  if (value.lon < -180 || value.lon > 180) throw new GraphqlInputError(`${argument}.lon must be between -180 and 180, got ${value.lon}`);
  return value;
}

/** The `ne`/`sw` bounding box: both corners or neither; the south-west corner may not lie north of the north-east one. */
export function readBox(args: { ne?: LocationArg | null; sw?: LocationArg | null }): Box | undefined {
  if (!args.ne && !args.sw) return undefined;
  if (!args.ne || !args.sw) throw new GraphqlInputError('ne and sw go together: give both corners of the bounding box');
  const box = { ne: corner(args.ne, 'ne'), sw: corner(args.sw, 'sw') };
  if (box.sw.lat > box.ne.lat) {
    throw new GraphqlInputError(`sw.lat (${box.sw.lat}) is north of ne.lat (${box.ne.lat}): sw is the south-west corner`);
  }
  return box;
}

/** Checks and converts the filter arguments of a field into DetectionCriteria. */
export function readCriteria(args: CriteriaArgs, options: CriteriaOptions): DetectionCriteria {
  const species = decodeIds(args.speciesIds, 'Species', 'speciesIds') ?? [];
  if (args.speciesId != null) species.push(decodeId(args.speciesId, 'Species', 'speciesId'));
  if (args.vote != null && args.vote !== 1 && args.vote !== -1) {
    throw new GraphqlInputError(`vote must be 1 (up-votes) or -1 (down-votes), got ${args.vote}`);
  }
  const timeOfDay = { gte: hour(args.timeOfDayGte, 'timeOfDayGte'), lte: hour(args.timeOfDayLte, 'timeOfDayLte') };
  return {
    window: readPeriod(args.period, options.nowMs, { optional: options.periodOptional }),
    speciesIds: species.length ? species : undefined,
    classifications: words(args.classifications, CLASSIFICATIONS, 'classifications'),
    stationIds: decodeIds(args.stationIds, 'Station', 'stationIds'),
    stationTypes: words(args.stationTypes, STATION_TYPES, 'stationTypes'),
    continents: words(args.continents, CONTINENTS, 'continents'),
    countries: words(args.countries, null, 'countries'),
    recordingModes: words(args.recordingModes, SOUNDSCAPE_MODES, 'recordingModes'),
    score: range(args, 'score'),
    confidence: range(args, 'confidence'),
    probability: range(args, 'probability'),
    timeOfDay: timeOfDay.gte !== undefined || timeOfDay.lte !== undefined ? timeOfDay : undefined,
    box: readBox(args),
    vote: args.vote ?? undefined,
    validSoundscape: args.validSoundscape ?? undefined,
    eclipse: args.eclipse ?? undefined,
    stationMinimums: args.overrideStationFilters !== true,
  };
}
