import type { Config } from '../config/index.js';
import { errorCode, errorMessage } from '../errors.js';

/**
 * A live check of the service for `status` and `doctor`: one cheap authenticated
 * read (today's stats) with a short time limit. It tells apart "the service is
 * unreachable" (network), "reachable but the token is refused" (401/403/404 on the
 * station path) and "reachable but failing" (5xx, HTML from a proxy).
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

export const DEFAULT_PROBE_TIMEOUT_MS = 3_000;

/** Statuses of a station path that mean "this token is not accepted". */
const TOKEN_REFUSED = new Set([401, 403, 404]);

export async function probeService(
  config: Config,
  options: { timeoutMs?: number } = {},
): Promise<ServiceProbe> {
  const baseUrl = config.service.baseUrl;
  const base: ServiceProbe = { checked: false, skipped: null, baseUrl, reachable: null, tokenValid: null, status: null, latencyMs: null, error: null };
  const token = config.service.token;
  if (!token) return { ...base, skipped: 'no station token configured (service.token, service.tokenFile or STATION_AGENT_TOKEN)' };

  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const { createServiceClient, HttpStatusError } = await import('../api/index.js');
  const client = createServiceClient({ baseUrl, token, timeoutMs, connectTimeoutMs: timeoutMs, connections: 1 });
  const started = performance.now();
  try {
    await client.probe({ timeoutMs });
    return { ...base, checked: true, reachable: true, tokenValid: true, status: 200, latencyMs: elapsed(started) };
  } catch (err) {
    const error = { code: errorCode(err), message: errorMessage(err) };
    if (err instanceof HttpStatusError) {
      const refused = TOKEN_REFUSED.has(err.status) && !err.html;
      return { ...base, checked: true, reachable: true, tokenValid: refused ? false : null, status: err.status, latencyMs: elapsed(started), error };
    }
    // A 2xx the client could not read (ServiceRejectedError) still proves the service answered.
    const answered = error.code === 'ERR_SERVICE_REJECTED';
    return { ...base, checked: true, reachable: answered, tokenValid: null, latencyMs: elapsed(started), error };
  } finally {
    await client.close();
  }
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
