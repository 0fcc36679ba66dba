/**
 * Secrets and their redaction: the one definition of which values are secret (the
 * registry below) and of how they are hidden (one placeholder), used by the API client,
 * the logger, the config, the CLI, the alerts, MQTT and the local service. It imports
 * nothing but the language itself, so the local service (its own package) can share it.
 *
 * The station token is the station's password and travels in the URL path
 * (`{base_url}/api/v1/stations/{token}/...`). Text that may end up in an error message,
 * a log line or `--json` output goes through `redactText`; a configured URL that is
 * printed (status, doctor, config show, an alert's receiver) goes through `redactUrl`;
 * header values and other secret settings are shown as `REDACTED`; a value a check
 * rejects is described by `describeRejected` (a string is never shown). Every
 * replacement is the one placeholder `REDACTED`.
 */

export const REDACTED = '<redacted>';

/** Secrets as callers hold them: absent ones are ignored. */
export type Secrets = readonly (string | null | undefined)[];

/**
 * The secret registry: every secret value this process has met, process-wide on purpose.
 * Whoever reads or is handed a secret adds it (the config's load: the token, the
 * webhook and heartbeat URLs, a broker password in mqtt.url; every secret file; the REST
 * client its tokens; MQTT its password), and every writer of a log line, an error,
 * `--json` output or a logged URL reads it through the functions below, never a list
 * of its own. A secret read after a message was built is hidden from the next one: add
 * it before anything could print it.
 *
 * Values shorter than {@link MIN_SECRET_LENGTH} are not kept: a test's token `x` would
 * otherwise blank every `x` of every line, and so short a value protects nothing. The
 * registry only grows (a replaced token stays secret); it holds what the operator
 * configured, a handful of values, however long the process runs.
 */
export const MIN_SECRET_LENGTH = 4;

const registry = new Set<string>();
/** The registry's values and their URL-encoded forms, longest first; null once a value was added. */
let expansion: string[] | null = null;

/** Adds secret values to the registry (absent and too short ones are ignored). */
export function addSecret(...values: Secrets): void {
  for (const value of values) {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH || registry.has(value)) continue;
    registry.add(value);
    expansion = null;
  }
}

/**
 * Adds a URL that is a credential as a whole (a webhook, a heartbeat monitor): the URL
 * as written and as parsed, its password, and its path and query, which a library's
 * message may show without the origin. A bare origin adds nothing (it is what
 * `redactUrl` shows); text that is no URL is added whole.
 *
 * @example addUrlSecrets('https://hc-ping.com/5f3a...') // the URL, '/5f3a...'
 */
export function addUrlSecrets(url: string | null | undefined): void {
  if (!url) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    addSecret(url);
    return;
  }
  const path = parsed.pathname.length > 1 ? parsed.pathname : null;
  // A bare origin is what `redactUrl` shows: no secret in it.
  if (!path && !parsed.search && !parsed.hash && !parsed.username && !parsed.password) return;
  addSecret(url, parsed.href, path, parsed.search || null, urlPassword(url), parsed.password || null);
}

/**
 * Field names whose values are secret whatever they hold, at any depth (`token`,
 * `headers.authorization`, ...): the logger blanks them by name (`redactDeep`'s `blankKeys`).
 */
export const SECRET_FIELDS: ReadonlySet<string> = new Set(['token', 'adminToken', 'authorization', 'x-auth-token']);

/** Every secret in the registry. */
export function knownSecrets(): readonly string[] {
  return [...registry];
}

/** `/stations/<segment>`: the token's place in a station path, whatever token it holds. */
const STATION_SEGMENT = /(\/stations\/)[^/?#\s"'<>\\]+/g;
/** `scheme://user:password@`: credentials in a URL. */
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/?#\s"'<>@]+@/gi;
/** Query parameters that carry credentials by name (`?token=`, `&access_token=`, `?key=`). */
const SECRET_QUERY = /([?&](?:[\w-]*token|auth|key|password|secret)=)[^&#\s"'<>]*/gi;

/**
 * `text` with every registered secret (literal and URL-encoded) and every credential-shaped part
 * of a URL (station path segment, userinfo, token query values) replaced by `REDACTED`.
 * Works on URLs, `METHOD /path` lines and free text; already redacted text stays as it is.
 *
 * @example redactText('GET https://svc/api/v1/stations/abc123/stats?limit=5')
 *   // 'GET https://svc/api/v1/stations/<redacted>/stats?limit=5'
 */
export function redactText(text: string): string {
  // Known secrets first: a token may hold a `/`, which the segment pattern would cut in two.
  let out = redactSecrets(text);
  if (out.includes('/stations/')) out = out.replace(STATION_SEGMENT, `$1${REDACTED}`);
  if (out.includes('@')) out = out.replace(USERINFO, `$1${REDACTED}@`);
  if (out.includes('=')) out = out.replace(SECRET_QUERY, `$1${REDACTED}`);
  return out;
}

/**
 * A configured URL (`service.baseUrl`, `service.graphqlUrl`) as it may be printed:
 * scheme, host and port only; userinfo, path, query and fragment each become
 * `REDACTED`, since a token pasted into the URL lands in one of them. Text that is not
 * a URL is redacted whole.
 *
 * @example redactUrl('https://user:pw@svc.example/abc123?t=1') // 'https://<redacted>@svc.example/<redacted>?<redacted>'
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return REDACTED;
  }
  const userinfo = parsed.username || parsed.password ? `${REDACTED}@` : '';
  const path = parsed.pathname && parsed.pathname !== '/' ? `/${REDACTED}` : '';
  const query = parsed.search ? `?${REDACTED}` : '';
  const fragment = parsed.hash ? `#${REDACTED}` : '';
  return `${parsed.protocol}//${userinfo}${parsed.host}${path}${query}${fragment}`;
}

/**
 * A rejected value as an error message may show it: numbers, booleans and null as they
 * are, anything else by its kind. A string is never shown: any setting may hold a pasted
 * token, and these messages reach the journal.
 *
 * @example describeRejected(20) // '20'
 * @example describeRejected('tok_abc123') // 'a string'
 */
export function describeRejected(value: unknown): string {
  if (typeof value === 'string') return value === '' ? '""' : 'a string';
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'an object';
  return String(value);
}

/** A map of header values as they may be printed: the names kept, every value `REDACTED`. */
export function redactHeaderValues(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
}

const MAX_DEPTH = 12;

/** Options of {@link redactDeep}. */
export interface RedactDeepOptions {
  /** Field names whose values become `REDACTED` whatever they hold, at any depth (e.g. `token`). */
  blankKeys?: ReadonlySet<string>;
}

/**
 * A copy of any value with every string (object keys included) passed through
 * `redactText`: for server bodies that may echo the token back and for everything the
 * logger writes. The caller's objects are never changed. With `blankKeys`, the values of
 * fields so named are `REDACTED` whole, in the same pass.
 *
 * Errors stay errors: the copy has the same prototype (so `instanceof` and the class
 * name still work), with message, stack, cause and own fields redacted. Buffers become
 * a short summary; cycles and depth are bounded.
 */
export function redactDeep<T>(value: T, options: RedactDeepOptions = {}): T {
  // A string or a number (most of what is logged) needs no walk and no cycle map.
  if (typeof value === 'string') return redactText(value) as T;
  if (value === null || typeof value !== 'object') return value;
  return copy(value, { blankKeys: options.blankKeys, seen: new WeakMap() }, 0) as T;
}

interface Walk {
  blankKeys: ReadonlySet<string> | undefined;
  seen: WeakMap<object, unknown>;
}

function copy(value: unknown, walk: Walk, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  const { seen, blankKeys } = walk;
  if (seen.has(value)) return seen.get(value);
  if (depth >= MAX_DEPTH) return '[too deep]';

  if (value instanceof Error) return copyError(value, walk, depth + 1);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(copy(item, walk, depth + 1));
    return out;
  }
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return `[${value.constructor.name} ${value.byteLength} bytes]`;
  // URL, Date and other classes that serialize themselves: redact what JSON would print.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return copy((value as { toJSON: () => unknown }).toJSON(), walk, depth + 1);
  }
  const out: Record<string, unknown> = {};
  seen.set(value, out);
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    out[redactText(key)] = blankKeys?.has(key) && item !== undefined ? REDACTED : copy(item, walk, depth + 1);
  }
  return out;
}

function copyError(err: Error, walk: Walk, depth: number): Error {
  const out = Object.create(Object.getPrototypeOf(err) as object | null) as Error;
  walk.seen.set(err, out);
  for (const key of Object.getOwnPropertyNames(err)) {
    const descriptor = Object.getOwnPropertyDescriptor(err, key);
    // `stack` may be an accessor (newer V8): read it through the getter, store the text.
    const raw: unknown = descriptor && 'value' in descriptor ? descriptor.value : (err as unknown as Record<string, unknown>)[key];
    Object.defineProperty(out, key, {
      value: walk.blankKeys?.has(key) && raw !== undefined ? REDACTED : copy(raw, walk, depth),
      enumerable: descriptor?.enumerable ?? false,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * `text` with every registered secret (literal and URL-encoded) replaced by `REDACTED`,
 * and nothing else changed: for output that shows the service's own paths
 * (`/stations/...`) and URLs, where only a secret itself must go.
 *
 * @example addSecret('tok_abc123'); redactSecrets('input.dir /srv/tok_abc123 does not exist') // 'input.dir /srv/<redacted> does not exist'
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of expandSecrets()) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** The registry's values and their URL-encoded forms, longest first (a secret inside another goes second); made again only after an addition. */
function expandSecrets(): string[] {
  if (expansion) return expansion;
  const all = new Set<string>();
  for (const secret of registry) {
    all.add(secret);
    all.add(encodeURIComponent(secret));
  }
  expansion = [...all].sort((a, b) => b.length - a.length);
  return expansion;
}

/** The password in a URL's userinfo (decoded), or null; never throws. */
export function urlPassword(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : null;
  } catch {
    return null;
  }
}
