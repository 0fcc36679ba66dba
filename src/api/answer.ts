/**
 * What an HTTP answer is, read the same way by every client of the service: the REST
 * client (`response.ts`), the status probe (`status/probe.ts`) and the CLI's GraphQL
 * support. One rule, so "an HTML page from a proxy" and "the token is refused" mean the
 * same thing to the uploader, `status` and `doctor`.
 */

/**
 * Whether an answer is an HTML page (a proxy's or gateway's error page, a captive
 * portal), from its `Content-Type` or, without one, from how its body starts. Such a
 * page is never the service's verdict on a request.
 *
 * @example
 * looksLikeHtml('text/html; charset=utf-8', '') // true
 * looksLikeHtml(undefined, '<!DOCTYPE html><title>504 Gateway Time-out</title>') // true
 * looksLikeHtml('application/json', '{"message":"Access denied"}') // false
 */
export function looksLikeHtml(contentType: string | undefined, text: string): boolean {
  return /\bhtml\b/i.test(contentType ?? '') || /^\s*<(!doctype|html|head|body|title|h1|center)\b/i.test(text);
}

/** The title (or first heading) of an HTML page, for a one-line message. */
export function htmlTitle(text: string): string | undefined {
  const m = /<title[^>]*>([^<]*)<\/title>/i.exec(text) ?? /<h1[^>]*>([^<]*)<\/h1>/i.exec(text);
  const title = m?.[1]?.replace(/\s+/g, ' ').trim();
  return title ? title.slice(0, 200) : undefined;
}

/** An answer's body: `json` is the parsed value, or undefined when the body is HTML or not JSON. */
export interface AnswerBody {
  html: boolean;
  json: unknown;
}

export function classifyBody(contentType: string | undefined, text: string): AnswerBody {
  if (looksLikeHtml(contentType, text)) return { html: true, json: undefined };
  try {
    return { html: false, json: JSON.parse(text) as unknown };
  } catch {
    return { html: false, json: undefined };
  }
}

/**
 * Statuses of a station path that mean "this token is not accepted": the real service
 * answers a bad token with 403 `{"message":"Access denied"}`, others answer 401, and an
 * unknown station path is a 404. An HTML page with one of these statuses comes from a
 * proxy, not from the service, and refuses nothing.
 */
const TOKEN_REFUSED_STATUSES: ReadonlySet<number> = new Set([401, 403, 404]);

export function isTokenRefusal(status: number, html: boolean): boolean {
  return TOKEN_REFUSED_STATUSES.has(status) && !html;
}
