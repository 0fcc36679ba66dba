import { EmulatorOptionError } from '../errors.js';

/**
 * Fault injection for tests and benchmarks. Shares are probabilities in 0..1,
 * drawn per eligible request from a generator seeded with the emulator's seed,
 * so the same requests in the same order meet the same faults.
 */
export interface FaultSpec {
  /** Share of requests answered with a 5xx. */
  error5xx?: number;
  /** Share of those 5xx answers that are an HTML gateway page (502/504, text/html) instead of JSON. */
  html?: number;
  /** Share of requests answered 429 with a `Retry-After` header. */
  rate429?: number;
  /** `Retry-After` seconds of the 429 answers (default 1). */
  retryAfterSec?: number;
  /** Delay before each eligible request is handled, in ms. */
  latencyMs?: number;
  /** Share of requests never answered: the socket is held until the client gives up. Nothing is stored. */
  timeout?: number;
  /** Share of requests handled (and stored) normally whose connection is then destroyed before the response. */
  drop?: number;
  /** Share of successful JSON answers reshaped as the real service's answers have drifted (see drift.ts). */
  drift?: number;
  /**
   * The lies (lies.ts): shares of accepted uploads the service then misreports. They
   * apply to every accepted upload, whatever `methods` and `paths` say, and add to none
   * of the outcome shares. One draw per soundscape picks one of lose, alter the
   * filesize or alter the duration; a second draw decides the second uploader's copy.
   */
  /** Share of accepted soundscapes answered 201 with an id, then never served (not listed, 404). */
  loseSoundscape?: number;
  /** Share of accepted detections answered 201 with an id, then never served. */
  loseDetection?: number;
  /** Share of accepted soundscapes stored with a filesize other than the bytes received. */
  alterFilesize?: number;
  /** Share of accepted soundscapes stored with a duration 7 s longer than the audio's. */
  alterDuration?: number;
  /** Share of accepted soundscapes and detections a second uploader posts again under the same token. */
  secondUploader?: number;
  /** Methods the faults apply to (default POST only). */
  methods?: ('GET' | 'POST')[];
  /** Regular expression the request path must match (default: every `/api/v1` path). */
  paths?: string;
}

/** A validated spec with every default filled in. */
export interface NormalizedFaults {
  error5xx: number;
  html: number;
  rate429: number;
  retryAfterSec: number;
  latencyMs: number;
  timeout: number;
  drop: number;
  drift: number;
  loseSoundscape: number;
  loseDetection: number;
  alterFilesize: number;
  alterDuration: number;
  secondUploader: number;
  methods: ReadonlySet<string>;
  paths: RegExp | undefined;
}

/**
 * The fault keys: the CLI string form (`5xx=0.1`) and the `FaultSpec` field each sets.
 * One table for the parser, its error messages, `describeFaults` (the echo) and the
 * table in docs/EMULATOR.md (a test holds them together). Messages always name the
 * string-form key, as the docs do.
 */
export const FAULT_KEYS = [
  { key: '5xx', field: 'error5xx' },
  { key: 'html', field: 'html' },
  { key: '429', field: 'rate429' },
  { key: 'retry-after', field: 'retryAfterSec' },
  { key: 'latency', field: 'latencyMs' },
  { key: 'timeout', field: 'timeout' },
  { key: 'drop', field: 'drop' },
  { key: 'drift', field: 'drift' },
  { key: 'lose-soundscape', field: 'loseSoundscape' },
  { key: 'lose-detection', field: 'loseDetection' },
  { key: 'alter-filesize', field: 'alterFilesize' },
  { key: 'alter-duration', field: 'alterDuration' },
  { key: 'second-uploader', field: 'secondUploader' },
  { key: 'methods', field: 'methods' },
  { key: 'paths', field: 'paths' },
] as const satisfies readonly { key: string; field: keyof FaultSpec }[];

const FIELD_OF = new Map<string, keyof FaultSpec>(FAULT_KEYS.map((k) => [k.key, k.field]));
const KEY_OF = new Map<string, string>(FAULT_KEYS.map((k) => [k.field, k.key]));

const SHARES = ['error5xx', 'html', 'rate429', 'timeout', 'drop', 'drift', 'loseSoundscape', 'loseDetection', 'alterFilesize', 'alterDuration', 'secondUploader'] as const;
const METHODS = ['GET', 'POST'] as const;

/** `field` is a FaultSpec field or a string-form key; the message names the string-form key. */
function fail(field: string, message: string): never {
  throw new EmulatorOptionError(`fault spec: "${KEY_OF.get(field) ?? field}" ${message}`);
}

/**
 * Parses the CLI form, e.g.
 * `5xx=0.1,html=0.5,429=0.05,retry-after=1,latency=20,timeout=0.02,drop=0.05,drift=0.5,methods=GET+POST,paths=detections`.
 * Methods are separated by `+`, `|` or `/`. An empty string or `none` means no faults.
 */
export function parseFaultString(text: string): FaultSpec {
  const spec: Record<string, unknown> = {};
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === 'none') return {};
  for (const entry of trimmed.split(',')) {
    const eq = entry.indexOf('=');
    const key = (eq < 0 ? entry : entry.slice(0, eq)).trim();
    const value = eq < 0 ? '' : entry.slice(eq + 1).trim();
    const field = FIELD_OF.get(key);
    if (!field) {
      throw new EmulatorOptionError(`fault spec: "${key}" is not a fault key (one of ${FAULT_KEYS.map((k) => k.key).join(', ')})`);
    }
    if (value === '') fail(key, 'needs a value (key=value)');
    if (field === 'methods') spec.methods = value.split(/[+|/]/).map((m) => m.trim().toUpperCase());
    else if (field === 'paths') spec.paths = value;
    else {
      const number = Number(value);
      if (!Number.isFinite(number)) fail(key, `must be a number, got ${JSON.stringify(value)}`);
      spec[field] = number;
    }
  }
  return spec;
}

/** The string form of a validated spec, every key with its value (defaults included): what the emulator logs. */
export function describeFaults(faults: NormalizedFaults): string {
  return FAULT_KEYS.flatMap(({ key, field }) => {
    if (field === 'methods') return [`${key}=${[...faults.methods].join('+')}`];
    if (field === 'paths') return faults.paths ? [`${key}=${faults.paths.source}`] : [];
    return [`${key}=${faults[field]}`];
  }).join(',');
}

/** Validates a spec (string or object) and fills in defaults; throws EmulatorOptionError naming the key. */
export function normalizeFaults(input: string | FaultSpec): NormalizedFaults {
  const spec = typeof input === 'string' ? parseFaultString(input) : input;
  for (const key of Object.keys(spec)) {
    if (!KEY_OF.has(key)) {
      throw new EmulatorOptionError(`fault spec: "${key}" is not a fault key (one of ${FAULT_KEYS.map((k) => k.field).join(', ')})`);
    }
  }
  for (const key of SHARES) {
    const value = spec[key];
    if (value !== undefined && !(typeof value === 'number' && value >= 0 && value <= 1)) {
      fail(key, `must be a share between 0 and 1, got ${JSON.stringify(value)}`);
    }
  }
  for (const key of ['retryAfterSec', 'latencyMs'] as const) {
    const value = spec[key];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
      fail(key, `must be a number >= 0, got ${JSON.stringify(value)}`);
    }
  }
  const lieShare = (spec.loseSoundscape ?? 0) + (spec.alterFilesize ?? 0) + (spec.alterDuration ?? 0);
  if (lieShare > 1 + 1e-9) fail('lose-soundscape+alter-filesize+alter-duration', `must add up to at most 1, got ${lieShare}`);
  const outcomeShare = (spec.timeout ?? 0) + (spec.rate429 ?? 0) + (spec.error5xx ?? 0) + (spec.drop ?? 0);
  if (outcomeShare > 1 + 1e-9) fail('5xx+429+timeout+drop', `must add up to at most 1, got ${outcomeShare}`);
  const methods = spec.methods ?? ['POST'];
  if (!Array.isArray(methods) || methods.some((m) => !(METHODS as readonly string[]).includes(m))) {
    fail('methods', `must be a list of ${METHODS.join(', ')}, got ${JSON.stringify(methods)}`);
  }
  let paths: RegExp | undefined;
  if (spec.paths !== undefined) {
    try {
      paths = new RegExp(spec.paths);
    } catch (err) {
      fail('paths', `is not a valid regular expression: ${(err as Error).message}`);
    }
  }
  return {
    error5xx: spec.error5xx ?? 0,
    html: spec.html ?? 0,
    rate429: spec.rate429 ?? 0,
    retryAfterSec: spec.retryAfterSec ?? 1,
    latencyMs: spec.latencyMs ?? 0,
    timeout: spec.timeout ?? 0,
    drop: spec.drop ?? 0,
    drift: spec.drift ?? 0,
    loseSoundscape: spec.loseSoundscape ?? 0,
    loseDetection: spec.loseDetection ?? 0,
    alterFilesize: spec.alterFilesize ?? 0,
    alterDuration: spec.alterDuration ?? 0,
    secondUploader: spec.secondUploader ?? 0,
    methods: new Set(methods),
    paths,
  };
}
