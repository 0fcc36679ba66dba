/**
 * Token redaction. The station token is the station's password and travels in the
 * URL path (`/api/v1/stations/{token}/...`), so every URL or path that can end up
 * in an error message, a log line or `--json` output goes through here first.
 *
 * The logger reuses `redactSecrets` / `redactUrl` so there is one definition of
 * "what a redacted URL looks like".
 */

export const REDACTED = '<redacted>';

/** `/stations/<segment>` followed by `/`, `?`, `#` or the end of the string. */
const STATION_SEGMENT = /(\/stations\/)[^/?#\s]+(?=[/?#\s]|$)/g;

/**
 * Replaces the `/stations/<token>` path segment with `/stations/<redacted>`, and any
 * literal (or URL-encoded) occurrence of the given secrets anywhere in the string.
 * Works on absolute URLs, paths with a query, and free text containing them.
 *
 * @example redactUrl('https://svc/api/v1/stations/abc123/detections?limit=5')
 *   // 'https://svc/api/v1/stations/<redacted>/detections?limit=5'
 */
export function redactUrl(url: string, ...secrets: Array<string | undefined>): string {
  return redactSecrets(url.replace(STATION_SEGMENT, `$1${REDACTED}`), ...secrets);
}

/** Same as `redactUrl`; the name reads better for `METHOD /path` strings. */
export const redactPath = redactUrl;

/**
 * Replaces every literal occurrence of each secret (and of its URL-encoded form)
 * with `<redacted>`. Empty or undefined secrets are ignored.
 */
export function redactSecrets(text: string, ...secrets: Array<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret) continue;
    out = out.split(secret).join(REDACTED);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join(REDACTED);
  }
  return out;
}

/**
 * A deep copy of a parsed JSON value with every string passed through
 * `redactSecrets`: for server bodies that may echo the token back
 * (e.g. `{"message": "unknown token abc123"}`).
 */
export function redactDeep<T>(value: T, ...secrets: Array<string | undefined>): T {
  if (!secrets.some(Boolean)) return value;
  return walk(value, secrets) as T;
}

function walk(value: unknown, secrets: Array<string | undefined>): unknown {
  if (typeof value === 'string') return redactSecrets(value, ...secrets);
  if (Array.isArray(value)) return value.map((v) => walk(v, secrets));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redactSecrets(k, ...secrets)] = walk(v, secrets);
    return out;
  }
  return value;
}
