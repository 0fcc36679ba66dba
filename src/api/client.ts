import type { Readable, Transform } from 'node:stream';
import { buildQuery, detectionListQuery, soundscapeListQuery, speciesListQuery, statsQuery } from './query.js';
import {
  normalizeDetection,
  normalizeFullSpecies,
  normalizeSoundscape,
  normalizeSpeciesSummary,
  normalizeStationConfig,
  toId,
  toNumber,
} from './normalize.js';
import { isObject } from '../wire/json-object.js';
import { OutcomeUnknownError } from './errors.js';
import { callOptions, Transport } from './transport.js';
import { memoryBody, openUploadBody } from './upload-body.js';
import type { CallArg, ExchangeResult, ServiceClientOptions } from './transport.js';
import type {
  ConfigUpdateBody,
  Detection,
  DetectionListQuery,
  DetectionListResponse,
  FullSpecies,
  PostDetectionBody,
  Soundscape,
  SoundscapeListQuery,
  SoundscapeListResponse,
  SpeciesListQuery,
  SpeciesListResponse,
  SpeciesLookupResponse,
  StationConfigRecord,
  StatsQuery,
  StatsResponse,
} from '../wire/types.js';

/**
 * The typed REST V1 client: one method per endpoint of the service interface
 * (`service-interface.md`, "Endpoints"). Creating methods (post detection, upload
 * soundscape) and single-resource reads return the resource itself; listings,
 * statistics and the species lookup return the whole response.
 *
 * Every method rejects only with the ApiError classes of `errors.ts` (see
 * `http.ts` for which transport failure is which), except for programming errors
 * (TypeError: invalid id, no token) and, for uploads, the fs error of a missing file.
 */

export interface UploadSoundscapeArgs {
  /** ISO 8601 with offset: the start of the soundscape (sent URL-encoded in the query). */
  timestamp: string;
  /** A file path (streamed from disk) or a stream. */
  body?: string | Readable;
  /** A file path; same as `body: path` (the uploader's port names it `file`). */
  file?: string;
  /**
   * The audio in memory (the encode step's FLAC): handed to the socket as it is, in one
   * write with the request head, with no stream and no copy. Its length is the
   * Content-Length; `size` and `through` do not apply.
   */
  data?: Buffer;
  /** Default `audio/flac`. */
  contentType?: string;
  /** Content-Length for a stream body (a file's size is read from disk). Without it the body is sent chunked. */
  size?: number;
  signal?: AbortSignal;
  /** Default: the client's `uploadTimeoutMs`. */
  timeoutMs?: number;
  /** A Transform the body passes through on its way out (the uploader's bandwidth cap and byte count). */
  through?: Transform;
}

export interface SoundscapeInfoQuery {
  /** Include the soundscape's detections. */
  detections?: boolean;
}

const DETECTION_FIELDS = [
  'timestamp',
  'commonName',
  'scientificName',
  'lat',
  'lon',
  'confidence',
  'soundscapeId',
  'soundscapeStartTime',
  'soundscapeEndTime',
] as const satisfies ReadonlyArray<keyof PostDetectionBody>;

const CONFIG_FIELDS = [
  'name',
  'locationPrivacy',
  'minConfidence',
  'minProbability',
  'minScore',
  'minHumanConfidence',
] as const satisfies ReadonlyArray<keyof ConfigUpdateBody>;

export class ServiceClient {
  readonly #t: Transport;

  constructor(options: ServiceClientOptions) {
    this.#t = new Transport(options);
  }

  /** GET /stations/{token}/stats */
  async stats(query: StatsQuery = {}, call?: CallArg): Promise<StatsResponse> {
    const r = await this.#get('/stats', true, statsQuery(query), call);
    const detections = toNumber(r.json.detections);
    const species = toNumber(r.json.species);
    if (detections === undefined || species === undefined) {
      throw this.#t.rejected(r, `HTTP ${r.status} without the counts "detections" and "species"`, detections === undefined ? 'detections' : 'species');
    }
    return { ...r.json, success: true, detections, species };
  }

  /** A cheap authenticated read (today's stats): the probe while uploads are paused. */
  probe(call?: CallArg): Promise<StatsResponse> {
    return this.stats({}, call);
  }

  /** GET /stations/{token}/species: the station's species with detection counts. */
  async listStationSpecies(query: SpeciesListQuery = {}, call?: CallArg): Promise<SpeciesListResponse> {
    const r = await this.#get('/species', true, speciesListQuery(query), call);
    const species = this.#array(r, 'species');
    return { ...r.json, success: true, species: species.map(normalizeSpeciesSummary) };
  }

  /** POST /stations/{token}/detections. Resolves with the created detection (its `id` checked). */
  async postDetection(body: PostDetectionBody, call?: CallArg): Promise<Detection> {
    const r = await this.#post('/detections', true, pick(body, DETECTION_FIELDS), call);
    return normalizeDetection(this.#created(r, 'detection'));
  }

  /**
   * GET /stations/{token}/detections, newest first. When nothing matches, the
   * service adds `unfiltered_detections` (a fallback, not a match).
   */
  async listDetections(query: DetectionListQuery = {}, call?: CallArg): Promise<DetectionListResponse> {
    const r = await this.#get('/detections', true, detectionListQuery(query), call);
    const out: DetectionListResponse = { ...r.json, success: true, detections: this.#array(r, 'detections').map(normalizeDetection) };
    if (Array.isArray(r.json.unfiltered_detections)) {
      out.unfiltered_detections = r.json.unfiltered_detections.map(normalizeDetection);
    }
    return out;
  }

  /** GET /stations/{token}/detections/{id} */
  async getDetection(id: number, call?: CallArg): Promise<Detection> {
    const r = await this.#get(`/detections/${pathId(id, 'detection id')}`, true, '', call);
    return normalizeDetection(this.#object(r, 'detection'));
  }

  /** GET /detections/{id}: no authentication; detections recorded before May 2025 are not served (404). */
  async getGlobalDetection(id: number, call?: CallArg): Promise<Detection> {
    const r = await this.#get(`/detections/${pathId(id, 'detection id')}`, false, '', call);
    return normalizeDetection(this.#object(r, 'detection'));
  }

  /**
   * POST /stations/{token}/soundscapes?timestamp=...: the audio itself is the body,
   * streamed. Resolves with the created soundscape (its `id` checked).
   */
  async uploadSoundscape(args: UploadSoundscapeArgs): Promise<Soundscape> {
    const source = args.data ?? args.body ?? args.file;
    if (source === undefined) throw new TypeError('uploadSoundscape needs "body" (a file path or a stream), "file" or "data"');
    if (typeof args.timestamp !== 'string' || args.timestamp === '') {
      throw new TypeError('uploadSoundscape needs "timestamp" (ISO 8601 with offset)');
    }
    const upload = Buffer.isBuffer(source) ? memoryBody(source) : await openUploadBody(source, args.size, args.through);
    try {
      const r = await this.#t.exchange({
        method: 'POST',
        path: '/soundscapes',
        station: true,
        query: buildQuery({ timestamp: args.timestamp }),
        stream: {
          body: upload.body,
          contentType: args.contentType ?? 'audio/flac',
          size: upload.size,
          bytesSent: upload.bytesSent,
        },
        timeoutMs: args.timeoutMs ?? this.#t.uploadTimeoutMs,
        signal: args.signal,
      });
      return normalizeSoundscape(this.#created(r, 'soundscape'));
    } finally {
      upload.dispose();
    }
  }

  /** GET /stations/{token}/soundscapes, newest first. */
  async listSoundscapes(query: SoundscapeListQuery = {}, call?: CallArg): Promise<SoundscapeListResponse> {
    const r = await this.#get('/soundscapes', true, soundscapeListQuery(query), call);
    return { ...r.json, success: true, soundscapes: this.#array(r, 'soundscapes').map(normalizeSoundscape) };
  }

  /** GET /stations/{token}/soundscapes/{id} */
  async getSoundscape(id: number, query: SoundscapeInfoQuery = {}, call?: CallArg): Promise<Soundscape> {
    const q = buildQuery({ detections: query.detections });
    const r = await this.#get(`/soundscapes/${pathId(id, 'soundscape id')}`, true, q, call);
    return normalizeSoundscape(this.#object(r, 'soundscape'));
  }

  /** GET /species/{id}: the full species record. */
  async getSpecies(id: number, call?: CallArg): Promise<FullSpecies> {
    const r = await this.#get(`/species/${pathId(id, 'species id')}`, false, '', call);
    return normalizeFullSpecies(this.#object(r, 'species'));
  }

  /**
   * POST /species/lookup. `species` are `<scientific name>_<common name>` strings;
   * the answer is keyed by them. `fields` limits the returned fields (omitted: all).
   */
  async lookupSpecies(species: string[], fields?: string[], call?: CallArg): Promise<SpeciesLookupResponse> {
    const body: Record<string, unknown> = { species };
    if (fields && fields.length) body.fields = fields;
    const r = await this.#post('/species/lookup', false, body, call);
    const map = r.json.species;
    if (!isObject(map)) throw this.#t.rejected(r, `HTTP ${r.status} without the "species" object`, 'species');
    const out: SpeciesLookupResponse['species'] = {};
    for (const [key, value] of Object.entries(map)) out[key] = normalizeFullSpecies(value);
    return { ...r.json, success: true, species: out };
  }

  /** POST /stations/{token}/config: resolves with the station's configuration record. */
  async updateConfig(body: ConfigUpdateBody, call?: CallArg): Promise<StationConfigRecord> {
    const r = await this.#post('/config', true, pick(body, CONFIG_FIELDS), call);
    return normalizeStationConfig(this.#object(r, 'station'));
  }

  /**
   * Uses `token` for every request from now on (the daemon reloads a fixed token file
   * without a restart). The replaced token stays in the secret registry (src/wire/redact.ts).
   */
  setToken(token: string): void {
    this.#t.setToken(token);
  }

  /** Closes the client's keep-alive pool once the calls in flight have ended. */
  close(): Promise<void> {
    return this.#t.close();
  }

  #get(path: string, station: boolean, query: string, call: CallArg): Promise<ExchangeResult> {
    const { signal, timeoutMs } = callOptions(call);
    return this.#t.exchange({ method: 'GET', path, station, query, signal, timeoutMs: timeoutMs ?? this.#t.timeoutMs });
  }

  #post(path: string, station: boolean, json: unknown, call: CallArg): Promise<ExchangeResult> {
    const { signal, timeoutMs } = callOptions(call);
    return this.#t.exchange({ method: 'POST', path, station, json, signal, timeoutMs: timeoutMs ?? this.#t.timeoutMs });
  }

  /**
   * The created object, with its id present and numeric: otherwise nothing proves it was
   * stored. An id that is there but no id the agent can keep (a word, beyond 2^53,
   * negative, a fraction) says the service stored something: the outcome is unknown, to
   * be looked up as after a timeout, never failed (a `queue retry` would post it again).
   */
  #created(r: ExchangeResult, key: 'detection' | 'soundscape'): Record<string, unknown> {
    const obj = r.json[key];
    if (!isObject(obj)) throw this.#t.rejected(r, `HTTP ${r.status} without the created ${key}`, key);
    if (toId(obj.id) === undefined) {
      if (obj.id != null) {
        const shown = JSON.stringify(obj.id);
        throw new OutcomeUnknownError(`HTTP ${r.status} with the created ${key}'s id ${shown.slice(0, 40)}, which is no id the agent can keep`, r.display, 'ERR_ODD_ID');
      }
      throw this.#t.rejected(r, `HTTP ${r.status} without the created ${key}'s id (id: null)`, `${key}.id`);
    }
    return obj;
  }

  #object(r: ExchangeResult, key: string): Record<string, unknown> {
    const obj = r.json[key];
    if (!isObject(obj)) throw this.#t.rejected(r, `HTTP ${r.status} without the "${key}" object`, key);
    return obj;
  }

  /** A listing without its array is refused rather than read as empty: reconciliation would conclude "not there". */
  #array(r: ExchangeResult, key: string): unknown[] {
    const list = r.json[key];
    if (!Array.isArray(list)) throw this.#t.rejected(r, `HTTP ${r.status} without the "${key}" array`, key);
    return list;
  }
}

export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  return new ServiceClient(options);
}

function pathId(id: number, what: string): string {
  if (!Number.isSafeInteger(id) || id < 0) throw new TypeError(`${what} must be a non-negative integer, got ${String(id)}`);
  return String(id);
}

/** Only the documented fields go on the wire (a caller's extra properties never leak into a request). */
function pick<T extends object, K extends keyof T>(body: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (body[k] !== undefined) out[k] = body[k];
  return out;
}
