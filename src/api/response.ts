import { HttpStatusError, OutcomeUnknownError, ServiceRejectedError } from './errors.js';
import type { WireResponse } from './http.js';
import { isObject } from '../wire/json-object.js';
import { redactDeep, redactText } from '../wire/redact.js';
import { htmlTitle, looksLikeHtml as looksLikeHtmlText } from './answer.js';

/**
 * Turning a complete HTTP response into either a JSON object or a typed error:
 *
 * | response                                  | result                                   |
 * |-------------------------------------------|------------------------------------------|
 * | non-2xx (JSON, HTML page, anything)       | HttpStatusError (status, errors, html, Retry-After) |
 * | 2xx whose body is not a JSON object       | OutcomeUnknownError (captive portal, truncated proxy answer: we cannot tell what happened) |
 * | 2xx with `success: false`                 | ServiceRejectedError                     |
 * | 2xx JSON object                           | the object                               |
 */

export interface ResponseContext {
  /** `METHOD /redacted/path` */
  display: string;
}

export function readJsonObject(res: WireResponse, ctx: ResponseContext): Record<string, unknown> {
  if (res.status < 200 || res.status > 299) throw httpStatusError(res, ctx);
  const text = res.body.toString('utf8');
  const parsed = parseJson(text);
  if (!isObject(parsed)) {
    const what = looksLikeHtml(res, text) ? 'an HTML page' : text.trim() ? 'a body that is not a JSON object' : 'an empty body';
    throw new OutcomeUnknownError(`HTTP ${res.status} with ${what} instead of the service's JSON`, ctx.display, 'ERR_BODY_NOT_JSON');
  }
  if (parsed.success === false) {
    const safe = redactDeep(parsed);
    const reason = describeBody(safe);
    throw new ServiceRejectedError(`HTTP ${res.status} with success: false${reason ? `: ${reason}` : ''}`, ctx.display, res.status, safe, 'success');
  }
  return parsed;
}

function httpStatusError(res: WireResponse, ctx: ResponseContext): HttpStatusError {
  const text = res.body.toString('utf8');
  const html = looksLikeHtml(res, text);
  const parsed = html ? null : redactDeep(parseJson(text));
  let serverMessage: string | undefined;
  let errors: Record<string, string[]> | undefined;
  if (isObject(parsed)) {
    serverMessage = stringField(parsed, 'message') ?? stringField(parsed, 'error');
    errors = normalizeErrors(parsed.errors);
  } else if (html) {
    serverMessage = htmlTitle(text);
  } else if (text.trim()) {
    serverMessage = text.trim().split('\n', 1)[0]?.slice(0, 200);
  }
  const location = header(res, 'location');
  // Redirects are not followed (a POST must not be replayed elsewhere); say where they point so a wrong baseUrl is obvious.
  if (res.status >= 300 && res.status < 400 && location) serverMessage ??= `redirected to ${redactText(location)}`;
  return new HttpStatusError(ctx.display, {
    status: res.status,
    body: parsed ?? null,
    serverMessage: serverMessage === undefined ? undefined : redactText(serverMessage),
    errors,
    html,
    retryAfterMs: parseRetryAfter(header(res, 'retry-after')),
  });
}

/**
 * `Retry-After` as milliseconds: either delta-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`, counted from `now`; a past date is 0).
 * Anything else is undefined.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!/[a-z]/i.test(v)) return undefined; // "1.5", "-3": neither form
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

function looksLikeHtml(res: WireResponse, text: string): boolean {
  return looksLikeHtmlText(header(res, 'content-type'), text);
}

/** The 422 `errors` object: `{field: [messages]}`; a bare string per field is accepted too. */
function normalizeErrors(value: unknown): Record<string, string[]> | undefined {
  if (!isObject(value)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(value)) {
    if (Array.isArray(messages)) out[field] = messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)));
    else if (typeof messages === 'string') out[field] = [messages];
  }
  return out;
}

function describeBody(body: Record<string, unknown>): string | undefined {
  const message = stringField(body, 'message') ?? stringField(body, 'error');
  if (message) return message;
  const errors = normalizeErrors(body.errors);
  if (!errors) return undefined;
  return Object.entries(errors)
    .map(([k, v]) => `${k} ${v.join(', ')}`)
    .join('; ');
}

function header(res: WireResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function stringField(o: Record<string, unknown>, key: string): string | undefined {
  const v = o[key];
  return typeof v === 'string' && v ? v : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

