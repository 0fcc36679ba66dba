import type { Readable } from 'node:stream';
import { connectionPool, type ConnectionPool } from './pool.js';
import { VERSION } from '../version.js';
import { NetworkError, ServiceRejectedError } from './errors.js';
import { send } from './http.js';
import { errorCode as codeOf } from '../errors.js';
import { addSecret, redactDeep, redactText, redactUrl, REDACTED } from '../wire/redact.js';
import { readJsonObject } from './response.js';

/**
 * The connection to the service shared by every endpoint: base URL, credentials,
 * keep-alive pool, timeouts and the metrics hook. `ServiceClient` (client.ts) only
 * says which path, query and body each endpoint takes.
 */

export interface ServiceClientOptions {
  /**
   * The service's `{base_url}`; REST V1 lives under `{baseUrl}/api/v1`. May carry a
   * path prefix. Example: `https://service.example` or `http://127.0.0.1:8080/proxy`.
   */
  baseUrl: string;
  /** Station token: sent as the `{token}` path segment (URL-encoded), never logged. */
  token?: string;
  /**
   * Administrator mode: `adminToken` goes only into `Authorization: Bearer ...`
   * (never in the URL) and the numeric `stationId` replaces the token in the path.
   */
  adminToken?: string;
  stationId?: number;
  /** Time limit of every call, from the call to the complete response (system/deadline.ts); the socket's idle timeout during a call too. Default 30 000 ms. */
  timeoutMs?: number;
  /** The same limit for soundscape uploads (the audio is sent, and the service answers after storing it). Default 120 000 ms. */
  uploadTimeoutMs?: number;
  /** TCP (and TLS) connect timeout. Default 10 000 ms. */
  connectTimeoutMs?: number;
  /** Keep-alive connections to the service at most (node:http's Agent `maxSockets`). Default 4. */
  connections?: number;
  /** Default `station-agent/<version>`. */
  userAgent?: string;
  /** Called after every call (also failed ones, with `status: 0`). Exceptions from it are ignored. */
  onResponse?: (info: ResponseInfo) => void;
}

export interface ResponseInfo {
  method: 'GET' | 'POST';
  /** Redacted path and query. */
  path: string;
  /** 0 when no complete response arrived. */
  status: number;
  durationMs: number;
  bytesSent: number;
  /** The error's code when the call failed (`ERR_NETWORK_BEFORE_SEND`, `ERR_HTTP_STATUS`, ...). */
  errorCode?: string;
}

/** Per-call options. Every endpoint also accepts a bare `AbortSignal` in their place. */
export interface CallOptions {
  /** Cancels the call (shutdown). Aborting an in-flight POST makes its outcome unknown. */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
}

export type CallArg = CallOptions | AbortSignal | undefined;

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_UPLOAD_TIMEOUT_MS = 120_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_CONNECTIONS = 4;

export interface Exchange {
  method: 'GET' | 'POST';
  /** Path under `/api/v1`, starting with `/`; `station: true` puts it under the station. */
  path: string;
  station?: boolean;
  /** Already built, `''` or `?a=b`. */
  query?: string;
  json?: unknown;
  stream?: { body: Readable | Buffer; contentType: string; size: number | undefined; bytesSent: () => number };
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface ExchangeResult {
  json: Record<string, unknown>;
  status: number;
  /** `METHOD /redacted/path?query` */
  display: string;
}

export class Transport {
  readonly #prefix: string;
  #token: string | undefined;
  /** Tokens replaced by `setToken`: a request still in flight may carry one, so they stay secret. */
  readonly #adminToken: string | undefined;
  readonly #stationId: number | undefined;
  readonly #pool: ConnectionPool;
  readonly #userAgent: string;
  readonly #onResponse: ServiceClientOptions['onResponse'];
  readonly timeoutMs: number;
  readonly uploadTimeoutMs: number;

  constructor(options: ServiceClientOptions) {
    const url = parseBaseUrl(options.baseUrl);
    this.#prefix = url.pathname.replace(/\/+$/, '');
    const { token, adminToken, stationId } = options;
    if (token !== undefined && (typeof token !== 'string' || token === '')) {
      throw new TypeError('ServiceClient option "token" must be a non-empty string');
    }
    if (adminToken !== undefined || stationId !== undefined) {
      if (token !== undefined) throw new TypeError('ServiceClient: give either "token" or "adminToken" with "stationId", not both');
      if (typeof adminToken !== 'string' || adminToken === '') {
        throw new TypeError('ServiceClient option "adminToken" must be a non-empty string when "stationId" is given');
      }
      if (!Number.isSafeInteger(stationId) || (stationId as number) <= 0) {
        throw new TypeError(`ServiceClient option "stationId" must be a positive integer, got ${String(stationId)}`);
      }
    }
    // Before any request could put them into an error: the registry every message is cleared of.
    addSecret(token, adminToken);
    this.#token = token;
    this.#adminToken = adminToken;
    this.#stationId = stationId;
    this.timeoutMs = positive('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
    this.uploadTimeoutMs = positive('uploadTimeoutMs', options.uploadTimeoutMs, DEFAULT_UPLOAD_TIMEOUT_MS);
    this.#userAgent = options.userAgent ?? `station-agent/${VERSION}`;
    this.#onResponse = options.onResponse;
    this.#pool = connectionPool(url, {
      connections: positive('connections', options.connections, DEFAULT_CONNECTIONS),
      connectTimeoutMs: positive('connectTimeoutMs', options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS),
    });
  }

  /** Replaces the station token for the requests that follow (the operator fixed the token file). */
  setToken(token: string): void {
    if (typeof token !== 'string' || token === '') throw new TypeError('ServiceClient token must be a non-empty string');
    if (this.#token === undefined) throw new TypeError('ServiceClient: setToken needs a client made with a station token');
    if (token === this.#token) return;
    addSecret(token);
    this.#token = token;
  }

  get adminMode(): boolean {
    return this.#adminToken !== undefined;
  }

  async exchange(x: Exchange): Promise<ExchangeResult> {
    const { real, shown } = this.#paths(x);
    const query = x.query ?? '';
    const display = redactText(`${x.method} ${shown}${query}`);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.#userAgent };
    if (this.#adminToken !== undefined) headers.authorization = `Bearer ${this.#adminToken}`;
    let body: string | Readable | Buffer | undefined;
    let bytesSent = (): number => 0;
    if (x.json !== undefined) {
      const text = JSON.stringify(x.json);
      headers['content-type'] = 'application/json';
      body = text;
      bytesSent = () => Buffer.byteLength(text);
    } else if (x.stream) {
      headers['content-type'] = x.stream.contentType;
      if (x.stream.size !== undefined) headers['content-length'] = String(x.stream.size);
      body = x.stream.body;
      bytesSent = x.stream.bytesSent;
    }
    const started = performance.now();
    const ctx = { display };
    let status = 0;
    let errorCode: string | undefined;
    let neverSent = false;
    try {
      const res = await send(this.#pool, {
        method: x.method,
        path: `${real}${query}`,
        display,
        headers,
        body,
        timeoutMs: x.timeoutMs,
        signal: x.signal,
      });
      status = res.status;
      return { json: readJsonObject(res, ctx), status, display };
    } catch (err) {
      errorCode = codeOf(err);
      neverSent = err instanceof NetworkError;
      throw err;
    } finally {
      // Without a hook, no report is built (three per recording).
      if (this.#onResponse) {
        this.#report({
          method: x.method,
          path: `${shown}${query}`,
          status,
          durationMs: performance.now() - started,
          bytesSent: neverSent ? 0 : bytesSent(),
          ...(errorCode ? { errorCode } : {}),
        });
      }
    }
  }

  /** A ServiceRejectedError for a 2xx without the expected object (`field` names it), with the body redacted. */
  rejected(result: ExchangeResult, message: string, field: string): ServiceRejectedError {
    return new ServiceRejectedError(message, result.display, result.status, redactDeep(result.json), field);
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  #paths(x: Exchange): { real: string; shown: string } {
    const base = `${this.#prefix}/api/v1`;
    // A base URL's own path is never shown: a token pasted into service.baseUrl lands there.
    const shownBase = this.#prefix ? `/${REDACTED}/api/v1` : '/api/v1';
    if (!x.station) return { real: `${base}${x.path}`, shown: `${shownBase}${x.path}` };
    if (this.#adminToken !== undefined) {
      const p = `/stations/${String(this.#stationId)}${x.path}`;
      return { real: `${base}${p}`, shown: `${shownBase}${p}` };
    }
    if (this.#token === undefined) {
      throw new TypeError(`ServiceClient: ${x.method} /stations/{token}${x.path} needs a station token ("token") or "adminToken" with "stationId"`);
    }
    return {
      real: `${base}/stations/${encodeURIComponent(this.#token)}${x.path}`,
      shown: `${shownBase}/stations/${REDACTED}${x.path}`,
    };
  }

  #report(info: ResponseInfo): void {
    if (!this.#onResponse) return;
    try {
      this.#onResponse(info);
    } catch {
      // A metrics hook must never turn a delivered upload into a failure.
    }
  }
}

export function callOptions(arg: CallArg): CallOptions {
  if (arg === undefined) return {};
  if (arg instanceof AbortSignal) return { signal: arg };
  return arg;
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`ServiceClient option "baseUrl" must be an absolute http(s) URL, got "${redactUrl(baseUrl)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`ServiceClient option "baseUrl" must use http or https, got "${url.protocol}"`);
  }
  if (url.search || url.hash) throw new TypeError('ServiceClient option "baseUrl" must not carry a query or fragment');
  return url;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`ServiceClient option "${name}" must be a positive number, got ${String(value)}`);
  return value;
}
