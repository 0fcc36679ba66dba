import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { NetworkError, OutcomeUnknownError } from './errors.js';
import type { ApiError } from './errors.js';
import { deadline } from '../system/deadline.js';
import { redactText } from '../wire/redact.js';

/**
 * One HTTP exchange over an undici dispatcher, and the classification of its
 * transport failures. This is the core of exactly-once uploads, so the rule is
 * stated once, here:
 *
 *   A failure is `NetworkError` (safe to retry) only when we can *prove* no byte of
 *   the request was written: undici calls `onRequestStart` right before it writes
 *   the request line to a connected socket, so any failure before that call (DNS,
 *   connection refused, connect timeout, TLS, a caller's abort while queued) left
 *   nothing at the service. Every failure after it (reset, "other side closed",
 *   headers/body timeout, the total deadline, a caller's abort, a truncated response)
 *   is `OutcomeUnknownError`: the service may have stored the item.
 *
 * Every exchange has a total deadline of `timeoutMs` (system/deadline.ts) beside
 * undici's idle timeouts, which restart at each byte: a peer that answers one byte
 * every few seconds would otherwise hold the request for ever. The deadline firing is
 * classified like any abort: before `onRequestStart` (still queued for a connection
 * or connecting) nothing was written; after it, the outcome is unknown (the service
 * may be storing the data while the answer trickles).
 *
 * The stale keep-alive case falls out of this rule: a POST written to a socket the
 * server had just closed fails with UND_ERR_SOCKET/ECONNRESET *after*
 * `onRequestStart`, and nothing proves the server did not read it, so it is
 * outcome unknown (the uploader reconciles before posting again).
 *
 * We use `dispatch` with our own handler rather than `request()` because only the
 * handler sees `onRequestStart`.
 */

export interface WireRequest {
  method: 'GET' | 'POST';
  origin: string;
  /** Path and query as sent (contains the token in station mode). */
  path: string;
  /** `METHOD /redacted/path?query`, the only form that appears in errors. */
  display: string;
  headers: Record<string, string>;
  body?: string | Readable | Buffer;
  /** The whole exchange's time limit, from the dispatch to the complete response; also undici's headers and body idle timeouts. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Strings that must never appear in an error message (the tokens). */
  secrets: ReadonlyArray<string | undefined>;
}

export interface WireResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Responses of this API are small JSON documents; anything bigger is not the service talking. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

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
  'UND_ERR_CONNECT_TIMEOUT',
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
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no response within the timeout',
  UND_ERR_BODY_TIMEOUT: 'response body stalled past the timeout',
  UND_ERR_SOCKET: 'connection closed by the other side',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection broken while sending',
  UND_ERR_ABORTED: 'request aborted',
  ABORTED: 'aborted by the caller',
  ERR_DEADLINE: 'total time limit reached',
  UND_ERR_RES_EXCEEDED_MAX_SIZE: `response larger than ${MAX_RESPONSE_BYTES} bytes`,
};

/** Sends one request and collects the whole (small) response body. Rejects only with ApiError. */
export function send(dispatcher: Dispatcher, req: WireRequest): Promise<WireResponse> {
  return new Promise<WireResponse>((resolve, reject) => {
    const { signal } = req;
    const limit = deadline(req.timeoutMs, signal);
    let settled = false;
    let started = false;
    let controller: Dispatcher.DispatchController | undefined;
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let received = 0;

    const finish = (err: ApiError | null, res?: WireResponse): void => {
      if (settled) return;
      settled = true;
      limit.clear();
      limit.signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(res as WireResponse);
    };

    function onAbort(): void {
      const reason = abortError(limit.signal);
      // Not yet on a socket: undici would only notice at onRequestStart (after a
      // connect that may take long), so settle now and cancel it there.
      finish(transportError(reason, started, req, limit.expired ? 'ERR_DEADLINE' : 'ABORTED'));
      if (started && controller) controller.abort(reason);
    }

    if (limit.signal.aborted) {
      finish(transportError(abortError(limit.signal), false, req, 'ABORTED'));
      return;
    }
    limit.signal.addEventListener('abort', onAbort, { once: true });

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (settled) {
          c.abort(abortError(limit.signal));
          return;
        }
        started = true;
      },
      onResponseStart(_c, statusCode, h) {
        if (statusCode < 200) return; // 1xx informational: the real status follows
        status = statusCode;
        headers = h;
      },
      onResponseData(c, chunk) {
        received += chunk.length;
        if (received > MAX_RESPONSE_BYTES) {
          c.abort(Object.assign(new Error(DESCRIPTIONS.UND_ERR_RES_EXCEEDED_MAX_SIZE), { code: 'UND_ERR_RES_EXCEEDED_MAX_SIZE' }));
          return;
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        finish(null, { status, headers, body: Buffer.concat(chunks) });
      },
      onResponseError(_c, err) {
        finish(transportError(err, started, req));
      },
    };

    try {
      dispatcher.dispatch(
        {
          origin: req.origin,
          path: req.path,
          method: req.method,
          headers: req.headers,
          body: req.body ?? null,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        },
        handler,
      );
    } catch (err) {
      // Synchronous refusal (closed dispatcher, invalid argument): nothing was written.
      finish(transportError(asError(err), false, req));
    }
  });
}

/**
 * The ApiError for a transport failure. `started` says whether undici had begun
 * writing this request (see the rule at the top of this file).
 */
export function transportError(err: Error, started: boolean, req: Pick<WireRequest, 'display' | 'secrets'>, forcedCode?: string): ApiError {
  const code = forcedCode ?? systemCode(err);
  const description = (code && DESCRIPTIONS[code]) ?? 'transport error';
  const detail = redactText(err.message, req.secrets);
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

/** The error code of a Node/undici error, looking through `cause` and AggregateError (happy eyeballs). */
export function systemCode(err: unknown): string | undefined {
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
