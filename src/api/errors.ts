import { StationAgentError, type CodeOf } from '../errors.js';
import { DeadlineError } from '../system/deadline.js';

/**
 * Errors of the typed REST client. The split that matters is *when* a failure
 * happened relative to the request reaching the service:
 *
 * - `NetworkError`: the request never left (connection refused, DNS, connect
 *   timeout). Nothing can have been stored: a retry is safe.
 * - `OutcomeUnknownError`: the request (or part of it) was sent, then the
 *   connection timed out or was reset before a complete response. The service may
 *   well have stored it (the real service times out while data still arrives), so a
 *   blind retry can duplicate: the uploader reconciles before posting again.
 * - `HttpStatusError`: a complete response with a non-2xx status.
 * - `ServiceRejectedError`: a 2xx whose JSON says `success: false` or lacks the
 *   created object's `id` (the real service answers a WAV upload with 415 but also
 *   `success: true, id: null`; see HttpStatusError for the status).
 */

export type ApiErrorCode = CodeOf<'NetworkError' | 'OutcomeUnknownError' | 'HttpStatusError' | 'ServiceRejectedError'>;

export abstract class ApiError extends StationAgentError {
  abstract override readonly code: ApiErrorCode;
  /** Method and redacted path, e.g. `POST /api/v1/stations/<redacted>/detections` (src/wire/redact.ts). */
  readonly request: string;

  constructor(message: string, request: string, options?: ErrorOptions) {
    super(`${message} (${request})`, options);
    this.request = request;
  }
}

/** A request that got no complete answer: the system's error code travels with it. */
abstract class TransportError extends ApiError {
  /** The system's error code, e.g. ECONNREFUSED, ENOTFOUND, UND_ERR_CONNECT_TIMEOUT. */
  readonly cause_code: string | undefined;

  constructor(message: string, request: string, causeCode?: string, options?: ErrorOptions) {
    super(message, request, options);
    this.cause_code = causeCode;
  }

  override toJSON() {
    return { ...super.toJSON(), request: this.request, causeCode: this.cause_code };
  }
}

/** The request never reached the service: safe to send again. */
export class NetworkError extends TransportError {
  readonly code: CodeOf<'NetworkError'> = 'ERR_NETWORK_BEFORE_SEND';
}

/** Sent, but no complete answer came back: the service may have stored it. */
export class OutcomeUnknownError extends TransportError {
  readonly code: CodeOf<'OutcomeUnknownError'> = 'ERR_OUTCOME_UNKNOWN';
}

/**
 * A request that got no answer in time: its total deadline passed (the transport error's
 * cause is the {@link DeadlineError}, src/system/deadline.ts) or its socket's idle timeout
 * fired (Node's `ETIMEDOUT`, no byte either way for `timeoutMs`, src/api/http.ts). An
 * operator is told the same of both: no answer within the time limit.
 */
export function timedOut(err: unknown): err is NetworkError | OutcomeUnknownError {
  return err instanceof TransportError && (err.cause instanceof DeadlineError || err.cause_code === 'ETIMEDOUT');
}

export interface HttpErrorDetails {
  status: number;
  /** Parsed JSON body, or null when the body was not JSON. */
  body: unknown;
  /** The server's `message`, when it sent one. */
  serverMessage: string | undefined;
  /** The server's `errors` object (422 validation), when it sent one. */
  errors: Record<string, string[]> | undefined;
  /** True when an HTML page came back instead of JSON (gateways, proxies). */
  html: boolean;
  /** Milliseconds from a `Retry-After` header, when present and valid. */
  retryAfterMs: number | undefined;
}

export class HttpStatusError extends ApiError implements HttpErrorDetails {
  readonly code: CodeOf<'HttpStatusError'> = 'ERR_HTTP_STATUS';
  readonly status: number;
  readonly body: unknown;
  readonly serverMessage: string | undefined;
  readonly errors: Record<string, string[]> | undefined;
  readonly html: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(request: string, details: HttpErrorDetails) {
    super(describeHttp(details), request);
    this.status = details.status;
    this.body = details.body;
    this.serverMessage = details.serverMessage;
    this.errors = details.errors;
    this.html = details.html;
    this.retryAfterMs = details.retryAfterMs;
  }

  override toJSON() {
    return {
      ...super.toJSON(),
      request: this.request,
      status: this.status,
      serverMessage: this.serverMessage,
      errors: this.errors,
      html: this.html,
      retryAfterMs: this.retryAfterMs,
    };
  }
}

export class ServiceRejectedError extends ApiError {
  readonly code: CodeOf<'ServiceRejectedError'> = 'ERR_SERVICE_REJECTED';
  readonly status: number;
  readonly body: unknown;
  /**
   * The answer's field that made it a refusal, as a path: `success` (false), or what
   * a 2xx lacked or held unreadable (`detection`, `detection.id`, `detections`).
   */
  readonly field: string | undefined;

  constructor(message: string, request: string, status: number, body: unknown, field?: string) {
    super(message, request);
    this.status = status;
    this.body = body;
    this.field = field;
  }

  override toJSON() {
    return { ...super.toJSON(), request: this.request, status: this.status, field: this.field };
  }
}

function describeHttp(d: HttpErrorDetails): string {
  const head = d.html ? `HTTP ${d.status} (HTML page instead of JSON)` : `HTTP ${d.status}`;
  const parts = [head];
  if (d.serverMessage) parts.push(d.serverMessage);
  if (d.errors) {
    const fields = Object.entries(d.errors).map(([k, v]) => `${k} ${v.join(', ')}`);
    if (fields.length) parts.push(fields.join('; '));
  }
  return parts.join(': ');
}
