import { HttpStatusError, NetworkError, OutcomeUnknownError, ServiceRejectedError } from '../api/errors.js';
import { isTokenRefusal } from '../api/answer.js';
import type { ItemKind } from '../queue/types.js';
import { errorCode, errorMessage, isTransient } from '../errors.js';

/**
 * What the uploader does with a failed request. Everything the uploader decides about
 * a failure is here, so the rules can be read (and tested) in one place. The table is
 * docs/ARCHITECTURE.md, "The uploader's decisions"; test/upload/decision-table.test.ts
 * runs every row of it, and every HTTP status, through this function.
 *
 * Transient failures never fail an item: there is no attempt limit, only a backoff cap.
 * What is transient is the service's answers' rows below, and of everything else the
 * register's one rule (`isTransient`, src/errors.ts), which ingest uses too.
 */
export type Decision =
  | {
      action: 'retry';
      /** Honour as the minimum delay. */
      retryAfterMs?: number;
      /** The service is struggling (5xx, network): feed the circuit breaker. */
      serviceDown: boolean;
      /** The service asked us to slow down (429/503): halve the concurrency. */
      throttle: boolean;
      code: string;
      message: string;
    }
  | {
      action: 'unknown';
      /** The service (or a gateway before it) left the outcome open: feed the circuit breaker. */
      serviceDown: boolean;
      code: string;
      message: string;
    }
  | { action: 'pause'; scope: 'station' | 'soundscapes'; reason: PauseReason; code: string; message: string }
  | { action: 'fail'; code: string; message: string };

export type PauseReason = 'token-rejected' | 'soundscape-format-rejected';

export function decide(err: unknown, kind: ItemKind): Decision {
  if (err instanceof NetworkError) {
    return { action: 'retry', serviceDown: true, throttle: false, code: err.code, message: err.message };
  }
  if (err instanceof OutcomeUnknownError) {
    return { action: 'unknown', serviceDown: true, code: err.code, message: err.message };
  }
  if (err instanceof HttpStatusError) return decideHttp(err, kind);
  if (err instanceof ServiceRejectedError) {
    return { action: 'fail', code: err.code, message: err.message };
  }
  const code = errorCode(err);
  if (code.startsWith('SQLITE_')) {
    // The queue could not record the outcome (disk full, locked by the CLI): the service
    // may well have stored the item. Failing it would lose a soundscape's detections
    // their link and invite a duplicate on `queue retry`; reconciling finds it. A full or
    // locked queue database says nothing about the service: it must not open the circuit
    // (whose interval would then keep uploads waiting after space returns).
    return { action: 'unknown', serviceDown: false, code, message: `the queue database refused the write: ${errorMessage(err)}` };
  }
  // Nothing reached the service (the spool file could not be opened: too many open files,
  // an I/O error): the same send later may well succeed, and nothing can be duplicated.
  if (isTransient(code)) return { action: 'retry', serviceDown: false, throttle: false, code, message: errorMessage(err) };
  return { action: 'fail', code, message: errorMessage(err) };
}

function decideHttp(err: HttpStatusError, kind: ItemKind): Decision {
  const { status } = err;
  const base = { code: `HTTP_${status}`, message: err.message };
  if (status === 429 || status === 503) {
    return { action: 'retry', retryAfterMs: err.retryAfterMs, serviceDown: status === 503, throttle: true, ...base };
  }
  // A gateway's 502/504 (or any HTML error page from a proxy) says the request went
  // upstream and no answer came back: the service may well have stored it. Every
  // request the uploader makes is a create, so this is an unknown outcome, reconciled
  // before anything is posted again, never a blind retry.
  if (status === 502 || status === 504 || (err.html && status >= 500)) {
    return { action: 'unknown', serviceDown: true, code: base.code, message: base.message };
  }
  // A gateway's HTML page is never the service's verdict on the item itself.
  if (status >= 500 || status === 408 || err.html) {
    return { action: 'retry', retryAfterMs: err.retryAfterMs, serviceDown: true, throttle: false, ...base };
  }
  // A redirect on a station path is a wrong base URL: it pauses as a refused token does.
  if (isTokenRefusal(status, err.html) || (status >= 300 && status < 400)) {
    return {
      action: 'pause',
      scope: 'station',
      reason: 'token-rejected',
      ...base,
      message: `the service refused the station token (${err.message}); check service.token and service.baseUrl`,
    };
  }
  if (status === 415 && kind === 'recording') {
    return {
      action: 'pause',
      scope: 'soundscapes',
      reason: 'soundscape-format-rejected',
      ...base,
      message: `the service refused the soundscape format (${err.message})`,
    };
  }
  return { action: 'fail', ...base };
}
