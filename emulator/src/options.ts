import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import { CONFIG_RANGES, STATION_TYPES } from '../../src/wire/types.js';
import type { EmulatorContext } from './context.js';
import { EmulatorOptionError } from './errors.js';
import type { FaultSpec } from './faults/spec.js';
import { STATION_EDITIONS } from './store/index.js';
import { isValidTimeZone } from './time.js';
import type { FastifyInstance } from 'fastify';

/** The package's species catalog (`emulator/assets/default-species.txt`), found from src/ or dist/. */
export const DEFAULT_LABELS_FILE = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@station-agent/emulator/package.json')),
  'assets/default-species.txt',
);

/** Where a station created without coordinates is placed. */
export const DEFAULT_LOCATION = { lat: 42.48, lon: -76.45 } as const;

/** Defaults of a new station's configuration (minHumanConfidence's default is the documented one). */
export const DEFAULT_STATION_CONFIG = {
  locationPrivacy: false,
  minConfidence: 0.7,
  minProbability: 0,
  minScore: 0,
  minHumanConfidence: 0.04,
} as const;

export const DEFAULT_ID_OFFSET = 3_000_000_000;
export const DEFAULT_UPLOAD_LIMIT_BYTES = 200 * 1024 * 1024;

/** The logger the emulator writes to (pino fits). Request lines go to `debug` when present. */
export interface EmulatorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug?(obj: object, msg?: string): void;
}

const range = ([min, max]: readonly [number, number]) => z.number().min(min).max(max);

const StationSeedSchema = z
  .object({
    token: z
      .string()
      .min(1)
      .regex(/^[^/?#\s]+$/, 'must be one URL path segment (no /, ?, # or blanks)'),
    id: z.number().int().positive().optional(),
    name: z.string().min(1).optional(),
    type: z.enum(STATION_TYPES).optional(),
    lat: z.number().min(-90).max(90).optional(),
    lon: z.number().min(-180).max(180).optional(),
    timezone: z.string().refine(isValidTimeZone, 'is not an IANA time zone (e.g. Europe/Berlin)').optional(),
    edition: z.enum(STATION_EDITIONS).optional(),
    active: z.boolean().optional(),
    locationPrivacy: z.boolean().optional(),
    minConfidence: range(CONFIG_RANGES.minConfidence).optional(),
    minProbability: range(CONFIG_RANGES.minProbability).optional(),
    minScore: range(CONFIG_RANGES.minScore).optional(),
    minHumanConfidence: range(CONFIG_RANGES.minHumanConfidence).optional(),
  })
  .strict();

/**
 * A station to create at start-up. Only `token` is required; defaults: name
 * `Station <n>`, type analyzerpi, edition standard, active, the DEFAULT_LOCATION,
 * time zone UTC and DEFAULT_STATION_CONFIG. A station whose token is already in the
 * database is left as stored (a restart keeps what the API changed).
 */
export type StationSeed = z.infer<typeof StationSeedSchema>;

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** SQLite file, or ':memory:' (default). Restarting on the same file keeps all data. */
  db?: string;
  /** Uploaded audio goes here. Default: a temporary folder (removed at close) for ':memory:', else `<db>.media/`. */
  dataDir?: string;
  /** Each token becomes an active analyzerpi station with the defaults. */
  tokens?: string[];
  stations?: StationSeed[];
  /** A JSON file holding an array of StationSeed. */
  stationsFile?: string;
  /** Accepted only in `Authorization: Bearer` or `X-Auth-Token`; see auth.ts. */
  adminToken?: string;
  /** Species catalog in the analyzer labels format. Default: emulator/assets/default-species.txt. */
  labels?: string;
  /** Base of media URLs. Default `<url>/media`. */
  mediaUrl?: string;
  faults?: string | FaultSpec;
  /** Seed of calculated probabilities and fault draws. Default 0. */
  seed?: number;
  /** First id (stations); other tables start at fixed strides above it. Default 3_000_000_000. */
  idOffset?: number;
  logger?: EmulatorLogger;
  /** The clock (epoch ms) used for periods and creation times. Default Date.now. */
  now?: () => number;
  /** Largest soundscape upload after decompression. Default 200 MiB. */
  uploadLimitBytes?: number;
  /** Adds routes (GraphQL) to the app before it listens. */
  extend?: (app: FastifyInstance, context: EmulatorContext) => void | Promise<void>;
}

function describeIssues(source: string, error: z.ZodError): string {
  return error.issues
    .map((issue) => `${source}${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ${issue.message}`)
    .join('; ');
}

export function parseStationSeeds(input: unknown, source: string): StationSeed[] {
  const result = z.array(StationSeedSchema).safeParse(input);
  if (!result.success) throw new EmulatorOptionError(describeIssues(source, result.error));
  return result.data;
}

export function readStationsFile(file: string): StationSeed[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new EmulatorOptionError(`cannot read stations file ${file}: ${(err as Error).message}`, { cause: err });
  }
  return parseStationSeeds(parsed, file);
}

/** All stations of the options: `tokens`, then `stations`, then the stations file. Tokens must be unique. */
export function collectStationSeeds(options: EmulatorOptions): StationSeed[] {
  const seeds = [
    ...parseStationSeeds((options.tokens ?? []).map((token) => ({ token })), 'tokens'),
    ...parseStationSeeds(options.stations ?? [], 'stations'),
    ...(options.stationsFile ? readStationsFile(options.stationsFile) : []),
  ];
  const seen = new Set<string>();
  seeds.forEach((seed, index) => {
    if (seen.has(seed.token)) throw new EmulatorOptionError(`station ${index + 1}: token given twice`);
    if (options.adminToken && seed.token === options.adminToken) {
      throw new EmulatorOptionError(`station ${index + 1}: a station token must differ from the admin token`);
    }
    seen.add(seed.token);
  });
  return seeds;
}
