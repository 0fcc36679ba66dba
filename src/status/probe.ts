import type { Config } from '../config/index.js';
import { classifyBody, isTokenRefusal } from '../api/answer.js';
import { HttpStatusError, ServiceRejectedError, timedOut } from '../api/errors.js';
import { sendOnce } from '../api/http.js';
import { StationAgentError, errorMessage } from '../errors.js';
import { isObject } from '../wire/json-object.js';
import { REDACTED, redactText, redactUrl } from '../wire/redact.js';
import { VERSION } from '../version.js';

/**
 * A live check of the service for `status` and `doctor`: one cheap authenticated
 * read (today's stats, the uploader's probe too) with a short time limit. It tells
 * apart "the service is unreachable" (network), "reachable but the token is
 * refused" (401/403/404 on the station path) and "reachable but failing" (5xx,
 * HTML from a proxy).
 *
 * Sent through the agent's one request path (src/api/http.ts `sendOnce`, a connection of
 * its own) rather than the REST client: one GET needs none of the client's pooling,
 * normalising or modules (`status --json` has a budget of 200 ms on a Pi). Its budget is
 * the whole exchange's deadline, and a body cut short at it is no answer. The request is
 * the client's `probe()`: `GET {baseUrl}/api/v1/stations/{token}/stats`.
 */
export interface ServiceProbe {
  /** False when the probe was not sent (`--offline`, no token); `skipped` says why. */
  checked: boolean;
  skipped: string | null;
  baseUrl: string;
  /** A complete HTTP response came back. */
  reachable: boolean | null;
  /** The service accepted the token; null when that could not be told (unreachable, 5xx). */
  tokenValid: boolean | null;
  /** HTTP status of the response, when one came. */
  status: number | null;
  latencyMs: number | null;
  error: { code: string; message: string } | null;
}

const DEFAULT_PROBE_TIMEOUT_MS = 3_000;

/** Enough of a body to read `success` and a message; a stats answer is tiny. */
const MAX_BODY_BYTES = 64 * 1024;

export async function probeService(config: Config, options: { timeoutMs?: number; tokenProblem?: string | null } = {}): Promise<ServiceProbe> {
  const baseUrl = config.service.baseUrl;
  const base: ServiceProbe = { checked: false, skipped: null, baseUrl: redactUrl(baseUrl), reachable: null, tokenValid: null, status: null, latencyMs: null, error: null };
  const token = config.service.token;
  if (options.tokenProblem) return { ...base, skipped: `the station token could not be read: ${options.tokenProblem}` };
  if (!token) return { ...base, skipped: 'no station token configured (service.token, service.tokenFile or STATION_AGENT_TOKEN)' };

  const url = new URL(baseUrl);
  const path = `${url.pathname.replace(/\/+$/, '')}/api/v1/stations/${encodeURIComponent(token)}/stats`;
  const shown = `GET ${redactUrl(baseUrl)}/api/v1/stations/${REDACTED}/stats`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const checked = { ...base, checked: true };
  try {
    const res = await sendOnce(new URL(path, url), {
      method: 'GET',
      display: shown,
      headers: { accept: 'application/json', 'user-agent': `station-agent/${VERSION}` },
      timeoutMs,
      maxResponseBytes: MAX_BODY_BYTES,
    });
    const { status } = res;
    const { html, json } = classifyBody(res.headers['content-type'], res.body.toString('utf8'));
    const body = json ?? null;
    const latencyMs = elapsed();
    if (status >= 200 && status < 300) {
      if (!html && isObject(body) && body.success === true) return { ...checked, reachable: true, tokenValid: true, status, latencyMs };
      return { ...checked, reachable: true, status, latencyMs, error: shownError(new ServiceRejectedError(`HTTP ${status} without a JSON answer`, shown, status, body, 'success')) };
    }
    const refused = isTokenRefusal(status, html);
    const error = new HttpStatusError(shown, { status, body, serverMessage: serverMessage(body), errors: undefined, html, retryAfterMs: undefined });
    return { ...checked, reachable: true, tokenValid: refused ? false : null, status, latencyMs, error: shownError(error) };
  } catch (err) {
    // The idle timeout or the deadline: the same to an operator.
    const message = timedOut(err) ? `no answer within ${timeoutMs} ms (${shown})` : errorMessage(err);
    const code = err instanceof StationAgentError ? err.code : 'ERR_NETWORK_BEFORE_SEND';
    return { ...checked, reachable: false, latencyMs: elapsed(), error: { code, message: redactText(message) } };
  }
}

function serverMessage(body: unknown): string | undefined {
  return isObject(body) && typeof body.message === 'string' ? body.message : undefined;
}

/** An answer's error as `status` and `doctor` show it: its code, its message cleared of every secret (the service may echo the token). */
function shownError(err: StationAgentError): { code: string; message: string } {
  return { code: err.code, message: redactText(err.message) };
}
