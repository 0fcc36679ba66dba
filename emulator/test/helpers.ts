import { expect } from 'vitest';
import type { Detection, Soundscape, StationConfigRecord } from '../../src/wire/types.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../src/index.js';
import { tempDir } from '../../test/helpers/paths.js';

export const TOKEN = 'station-token-1';
export const OTHER_TOKEN = 'station-token-2';
export const ADMIN = 'admin-secret-token';

export const SPECIES_REF_KEYS = [
  'id',
  'commonName',
  'scientificName',
  'color',
  'classification',
  'imageUrl',
  'thumbnailUrl',
].sort();

export const FULL_SPECIES_KEYS = [
  ...SPECIES_REF_KEYS,
  'encyclopediaUrl',
  'encyclopediaSummary',
  'alpha',
  'alpha6',
  'registryCode',
  'registryUrl',
  'imageCredit',
  'imageCreditHtml',
  'imageLicense',
  'imageLicenseUrl',
].sort();

export const DETECTION_KEYS = [
  'id',
  'stationId',
  'timestamp',
  'species',
  'lat',
  'lon',
  'confidence',
  'probability',
  'score',
  'certainty',
  'algorithm',
  'metadata',
  'soundscape',
].sort();

export const SOUNDSCAPE_KEYS = ['id', 'stationId', 'duration', 'filesize', 'sampleRate', 'timestamp', 'mode', 'url'].sort();

export const DETECTION_SOUNDSCAPE_KEYS = ['url', 'startTime', 'endTime', 'mode'].sort();

export const WIRE_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/;

/** Asserts the exact key set of an object. */
export function expectKeys(value: unknown, keys: readonly string[]): void {
  expect(value).toBeTypeOf('object');
  expect(Object.keys(value as object).sort()).toEqual([...keys].sort());
}

/**
 * The body of a station endpoint's answer, with every top-level field the tests
 * read. Which ones are present is what the tests assert; species endpoints pass
 * their own response type.
 */
export interface WireBody {
  success: boolean;
  message?: string;
  errors?: Record<string, string[]>;
  detection: Detection;
  detections: Detection[];
  unfiltered_detections?: Detection[];
  soundscape: Soundscape;
  soundscapes: Soundscape[];
  station: StationConfigRecord;
}

export interface Answer<T = WireBody> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  json?: unknown;
  form?: Record<string, string | string[]>;
  body?: Buffer | Uint8Array;
  headers?: Record<string, string>;
}

/** One request over the real socket; the body is parsed as JSON when it is JSON. */
export async function call<T = WireBody>(base: string, method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Uint8Array | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(options.form)) for (const item of [v].flat()) params.append(k, item);
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = params.toString();
  } else if (options.body) {
    body = new Uint8Array(options.body);
  }
  const response = await fetch(`${base}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text && (response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export interface TestService {
  emulator: RunningEmulator;
  dir: string;
  get: <T = WireBody>(path: string, options?: CallOptions) => Promise<Answer<T>>;
  post: <T = WireBody>(path: string, options?: CallOptions) => Promise<Answer<T>>;
  /** `/api/v1/stations/<token>` + rest */
  station: (rest: string, token?: string) => string;
  stop: () => Promise<void>;
}

/** A real emulator on a free port with a file database in a temp folder. */
export async function startService(options: EmulatorOptions = {}): Promise<TestService> {
  const { dir, cleanup } = tempDir('emulator-test-');
  const emulator = await startEmulator({
    db: `${dir}/service.db`,
    stations: [
      { token: TOKEN, name: 'Garden', lat: 52.52, lon: 13.405, timezone: 'Europe/Berlin' },
      { token: OTHER_TOKEN, name: 'Other' },
    ],
    adminToken: ADMIN,
    ...options,
  });
  return {
    emulator,
    dir,
    get: (path, o) => call(emulator.url, 'GET', path, o),
    post: (path, o) => call(emulator.url, 'POST', path, o),
    station: (rest, token = TOKEN) => `/api/v1/stations/${token}${rest}`,
    stop: async () => {
      await emulator.close();
      cleanup();
    },
  };
}

/** A valid detection body; fields can be overridden. */
export function detectionBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    timestamp: '2025-06-01T05:30:00.000+02:00',
    commonName: 'Eurasian Blackbird',
    scientificName: 'Turdus merula',
    confidence: 0.91,
    ...overrides,
  };
}

/** The station record's fields, as the spec lists them for the config update (also the probe `GET /stations/{token}`). */
export const STATION_RECORD_KEYS = [
  'id',
  'name',
  'type',
  'timezone',
  'latestDetectionAt',
  'latestValidDetectionAt',
  'locationPrivacy',
  'minConfidence',
  'minProbability',
  'minScore',
  'minHumanConfidence',
];
