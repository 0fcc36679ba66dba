import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { NetworkError, OutcomeUnknownError } from './errors.js';
import type { ApiError } from './errors.js';
import { connectionPool, type ConnectionPool } from './pool.js';
import { deadline } from '../system/deadline.js';
import { redactText } from '../wire/redact.js';

/**
 * One HTTP exchange over a keep-alive pool of Node's own client (pool.ts), and the
 * classification of its transport failures: the one request path of the agent. The
 * service's REST client sends through `send`; the status probe, the alert webhook and
 * the heartbeat through `sendOnce` (a connection of their own), each with its per-use
 * options (`timeoutMs`, `maxResponseBytes`, `statusSuffices`). This is the core of
 * exactly-once uploads, so the rule is stated once, here:
 *
 *   A failure is `NetworkError` (safe to retry) only when we can *prove* no byte of
 *   the request was written. Node writes a request to its socket when the socket is
 *   connected: at once for a reused keep-alive connection, at `connect` for a new
 *   plain one, at `secureConnect` (the TLS handshake done) for a new TLS one; until
 *   then the request head waits in the socket's buffer. So any failure before that
 *   moment (DNS, connection refused, connect timeout, TLS, a caller's abort while
 *   queued for a connection or connecting) left nothing at the service. Every failure
 *   after it (reset, "socket hang up", the idle timeout, the total deadline, a
 *   caller's abort, a truncated response) is `OutcomeUnknownError`: the service may
 *   have stored the item.
 *
 * Every exchange has a total deadline of `timeoutMs` (system/deadline.ts) beside the
 * socket's idle timeout, which restarts at each byte: a peer that answers one byte
 * every few seconds would otherwise hold the request for ever. The deadline firing is
 * classified like any abort: before the socket is connected nothing was written;
 * after it, the outcome is unknown (the service may be storing the data while the
 * answer trickles).
 *
 * The stale keep-alive case falls out of this rule: a POST written to a socket the
 * server had just closed fails with ECONNRESET ("socket hang up") *after* it was
 * written, and nothing proves the server did not read it, so it is outcome unknown
 * (the uploader reconciles before posting again).
 */

export interface WireRequest {
  method: 'GET' | 'POST';
  /** Path and query as sent (contains the token in station mode). */
  path: string;
  /** `METHOD /redacted/path?query`, the only form that appears in errors. */
  display: string;
  headers: Record<string, string>;
  body?: string | Readable | Buffer;
  /** The whole exchange's time limit, from the call to the complete response; also the socket's idle timeout during the exchange. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** The answer's body at most (default {@link MAX_RESPONSE_BYTES}); a longer one fails with `ERR_RESPONSE_TOO_LARGE`, or is cut there with `statusSuffices`. */
  maxResponseBytes?: number;
  /**
   * The status is the answer: once it came, a body cut short (the deadline, a reset, more
   * than `maxResponseBytes`) resolves with what came and `complete: false` instead of
   * failing. For a notice's receiver (the alert webhook, the heartbeat): a 2xx whose body
   * still trickles at the deadline was delivered, and sending again would only repeat
   * the notice. Never for the service's API, where a cut answer is an unknown outcome.
   */
  statusSuffices?: boolean;
}

export interface WireResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** False when `statusSuffices` resolved a body cut short. */
  complete: boolean;
}

/** Responses of this API are small JSON documents; anything bigger is not the service talking. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** Error codes that can only happen while connecting, i.e. before anything was written. */
const CONNECT_PHASE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ERR_CONNECT_TIMEOUT',
  'ERR_POOL_CLOSED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
]);

const DESCRIPTIONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed (DNS unavailable)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ERR_CONNECT_TIMEOUT: 'connect timed out',
  ETIMEDOUT: 'no data within the timeout',
  ECONNRESET: 'connection closed or reset by the other side',
  EPIPE: 'connection broken while sending',
  ABORTED: 'aborted by the caller',
  ERR_DEADLINE: 'total time limit reached',
  ERR_RESPONSE_TOO_LARGE: 'response too large',
  ERR_POOL_CLOSED: 'the client was closed',
};

/** Sockets known to be connected (and, for TLS, through the handshake): a request on one is written at once. */
const ready = new WeakSet<Socket>();

/** Sends one request and collects the whole (small) response body. Rejects only with ApiError. */
export function send(pool: ConnectionPool, req: WireRequest): Promise<WireResponse> {
  const done = exchange(pool, req);
  pool.track(done);
  return done;
}

/**
 * One request to `url` over a connection of its own, closed once it is over: for the
 * rare requests beside the service's REST client (the status probe, the alert webhook,
 * the heartbeat), with the client's deadline, connect rule and failure classes.
 * `connectTimeoutMs` defaults to `timeoutMs` (the deadline bounds it anyway).
 *
 * @example
 * const res = await sendOnce(new URL(hook), { method: 'POST', display: 'POST https://host', headers, body, timeoutMs: 10_000, statusSuffices: true });
 */
export async function sendOnce(url: URL, req: Omit<WireRequest, 'path'> & { connectTimeoutMs?: number }): Promise<WireResponse> {
  const pool = connectionPool(new URL(url.origin), { connections: 1, connectTimeoutMs: req.connectTimeoutMs ?? req.timeoutMs, keepAlive: false });
  try {
    return await send(pool, { ...req, path: `${url.pathname}${url.search}` });
  } finally {
    await pool.close();
  }
}

function exchange(pool: ConnectionPool, req: WireRequest): Promise<WireResponse> {
  return new Promise<WireResponse>((resolve, reject) => {
    const { signal } = req;
    let settled = false;
    let started = false;
    let connectTimer: NodeJS.Timeout | undefined;
    // Set once the request exists: finish() destroys it.
    const current: { request?: ClientRequest } = {};
    const chunks: Buffer[] = [];
    let received = 0;
    const maxBytes = req.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    // Set at the answer's head: with statusSuffices, what ends the body early ends the exchange with it.
    let head: IncomingMessage | undefined;

    if (!pool.open) {
      reject(transportError(codeError('ERR_POOL_CLOSED', 'the client was closed'), false, req));
      return;
    }
    const limit = deadline(req.timeoutMs, signal);

    const finish = (err: ApiError | null, res?: WireResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      limit.clear();
      limit.signal.removeEventListener('abort', onAbort);
      if (err) {
        current.request?.destroy();
        reject(err);
      } else resolve(res as WireResponse);
    };
    /** Settles with `err` first (its code, not the one of the reset that destroying causes), then ends the request. */
    const fail = (err: Error, code?: string): void => {
      if (req.statusSuffices && head && !settled) {
        finish(null, { status: head.statusCode ?? 0, headers: head.headers, body: Buffer.concat(chunks), complete: false });
        current.request?.destroy();
      } else finish(transportError(err, started, req, code));
    };

    function onAbort(): void {
      fail(abortError(limit.signal), limit.expired ? 'ERR_DEADLINE' : 'ABORTED');
    }

    if (limit.signal.aborted) {
      fail(abortError(limit.signal), 'ABORTED');
      return;
    }
    limit.signal.addEventListener('abort', onAbort, { once: true });

    let r: ClientRequest;
    try {
      r = pool.request({
        agent: pool.agent,
        protocol: pool.origin.protocol,
        hostname: pool.origin.hostname.replace(/^\[|\]$/g, ''),
        port: pool.origin.port || undefined,
        method: req.method,
        path: req.path,
        headers: req.headers,
      });
    } catch (err) {
      // Synchronous refusal (an invalid header or path): nothing was written.
      fail(asError(err));
      return;
    }
    current.request = r;
    // Kept for the request's whole life: an error after the settlement (the reset that
    // destroying causes) is expected and must not become an uncaught exception.
    r.on('error', (err) => fail(err));
    r.once('socket', (socket: Socket) => {
      if (settled) return;
      // A new socket is still connecting here ('socket' comes a tick after the agent
      // made it). One that is not, and that we have not seen become ready, is counted
      // as written to: an unknown outcome is always the safe side.
      if (ready.has(socket) || !socket.connecting) {
        started = true;
        return;
      }
      connectTimer = setTimeout(
        () => fail(codeError('ERR_CONNECT_TIMEOUT', `no connection within ${pool.connectTimeoutMs} ms`)),
        pool.connectTimeoutMs,
      );
      socket.once(pool.secure ? 'secureConnect' : 'connect', () => {
        ready.add(socket);
        clearTimeout(connectTimer);
        if (!settled) started = true;
      });
    });
    // The idle timeout: no byte either way for this long (restarts at each byte; the deadline does not).
    r.setTimeout(req.timeoutMs, () => fail(codeError('ETIMEDOUT', `no data for ${req.timeoutMs} ms`)));
    // Node skips 1xx answers ('information'): 'response' is the real status.
    r.on('response', (res: IncomingMessage) => {
      head = res;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) {
          fail(codeError('ERR_RESPONSE_TOO_LARGE', `response larger than ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => finish(null, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), complete: true }));
      res.on('error', (err) => fail(err));
      res.on('close', () => {
        if (!res.complete) fail(codeError('ECONNRESET', 'connection closed before the response was complete'));
      });
    });

    const { body } = req;
    if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) {
      // A string or buffer goes out with the head in one write, its Content-Length set by Node.
      r.end(body);
    } else {
      body.once('error', (err) => r.destroy(err));
      body.pipe(r);
    }
  });
}

/**
 * The ApiError for a transport failure. `started` says whether the request could have
 * been written (see the rule at the top of this file).
 */
function transportError(err: Error, started: boolean, req: Pick<WireRequest, 'display'>, forcedCode?: string): ApiError {
  const code = forcedCode ?? systemCode(err);
  const description = (code && DESCRIPTIONS[code]) ?? 'transport error';
  const detail = redactText(err.message);
  const suffix = `${code ? ` (${code})` : ''}${detail && detail !== description ? `: ${detail}` : ''}`;
  if (!started || (code !== undefined && CONNECT_PHASE_CODES.has(code))) {
    return new NetworkError(`request not sent: ${description}${suffix}`, req.display, code, { cause: err });
  }
  return new OutcomeUnknownError(
    `outcome unknown, the request was (at least partly) sent: ${description}${suffix}`,
    req.display,
    code,
    { cause: err },
  );
}

/** The error code of a Node error, looking through `cause` and AggregateError (happy eyeballs). */
function systemCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    if ('code' in e && typeof e.code === 'string') return e.code;
    if ('errors' in e && Array.isArray(e.errors) && e.errors.length) {
      const inner = systemCode(e.errors[0]);
      if (inner) return inner;
    }
    e = 'cause' in e ? e.cause : undefined;
  }
  return undefined;
}

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted by the caller');
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function codeError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}
