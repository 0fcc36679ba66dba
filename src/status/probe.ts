import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/index.js';
import { classifyBody, isTokenRefusal } from '../api/answer.js';
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
 * Sent with a bare node:http request rather than the REST client: one GET needs none of
 * the client's pooling, retries or modules (`status --json` has a budget of 200 ms on a Pi). The request is the
 * client's `probe()`: `GET {baseUrl}/api/v1/stations/{token}/stats`.
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
    const { status, body, html } = await get(url, path, timeoutMs);
    const latencyMs = elapsed();
    const message = serverMessage(body);
    if (status >= 200 && status < 300) {
      if (!html && isObject(body) && body.success === true) return { ...checked, reachable: true, tokenValid: true, status, latencyMs };
      return { ...checked, reachable: true, status, latencyMs, error: { code: 'ERR_SERVICE_REJECTED', message: `HTTP ${status} without a JSON answer (${shown})` } };
    }
    const detail = `HTTP ${status}${html ? ' (HTML page instead of JSON)' : ''}${message ? `: ${message}` : ''} (${shown})`;
    const refused = isTokenRefusal(status, html);
    return {
      ...checked,
      reachable: true,
      tokenValid: refused ? false : null,
      status,
      latencyMs,
      error: { code: 'ERR_HTTP_STATUS', message: redactText(detail) },
    };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const message = e.code === 'ETIMEDOUT' ? `no answer within ${timeoutMs} ms` : `${e.code ?? 'error'}: ${e.message}`;
    return { ...checked, reachable: false, latencyMs: elapsed(), error: { code: 'ERR_NETWORK_BEFORE_SEND', message: redactText(`${message} (${shown})`) } };
  }
}

interface Answer {
  status: number;
  body: unknown;
  html: boolean;
}

async function get(url: URL, path: string, timeoutMs: number): Promise<Answer> {
  const transport = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<Answer>((resolve, reject) => {
    const req = transport.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': `station-agent/${VERSION}` },
        timeout: timeoutMs,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const { html, json } = classifyBody(res.headers['content-type'], text);
          resolve({ status: res.statusCode ?? 0, body: json ?? null, html });
        });
        res.on('error', reject);
      },
    );
    // One deadline for the whole exchange, as the uploader's probe has.
    const deadline = setTimeout(() => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })), timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end();
  });
}

function serverMessage(body: unknown): string | undefined {
  return isObject(body) && typeof body.message === 'string' ? body.message : undefined;
}
