import { HttpStatusError, OutcomeUnknownError, ServiceRejectedError } from './errors.js';
import { isObject } from '../wire/json-object.js';
import { redactDeep, redactText } from '../wire/redact.js';
import { htmlTitle, looksLikeHtml as looksLikeHtmlText } from './answer.js';
export function readJsonObject(res, ctx) {
    if (res.status < 200 || res.status > 299)
        throw httpStatusError(res, ctx);
    const text = res.body.toString('utf8');
    const parsed = parseJson(text);
    if (!isObject(parsed)) {
        const what = looksLikeHtml(res, text) ? 'an HTML page' : text.trim() ? 'a body that is not a JSON object' : 'an empty body';
        throw new OutcomeUnknownError(`HTTP ${res.status} with ${what} instead of the service's JSON`, ctx.display, 'ERR_BODY_NOT_JSON');
    }
    if (parsed.success === false) {
        const safe = redactDeep(parsed, ctx.secrets);
        const reason = describeBody(safe);
        throw new ServiceRejectedError(`HTTP ${res.status} with success: false${reason ? `: ${reason}` : ''}`, ctx.display, res.status, safe, 'success');
    }
    return parsed;
}
export function httpStatusError(res, ctx) {
    const text = res.body.toString('utf8');
    const html = looksLikeHtml(res, text);
    const parsed = html ? null : redactDeep(parseJson(text), ctx.secrets);
    let serverMessage;
    let errors;
    if (isObject(parsed)) {
        serverMessage = stringField(parsed, 'message') ?? stringField(parsed, 'error');
        errors = normalizeErrors(parsed.errors);
    }
    else if (html) {
        serverMessage = htmlTitle(text);
    }
    else if (text.trim()) {
        serverMessage = text.trim().split('\n', 1)[0]?.slice(0, 200);
    }
    const location = header(res, 'location');
    if (res.status >= 300 && res.status < 400 && location)
        serverMessage ??= `redirected to ${redactText(location, ctx.secrets)}`;
    return new HttpStatusError(ctx.display, {
        status: res.status,
        body: parsed ?? null,
        serverMessage: serverMessage === undefined ? undefined : redactText(serverMessage, ctx.secrets),
        errors,
        html,
        retryAfterMs: parseRetryAfter(header(res, 'retry-after')),
    });
}
export function parseRetryAfter(value, now = Date.now()) {
    if (value === undefined)
        return undefined;
    const v = value.trim();
    if (/^\d+$/.test(v))
        return Number(v) * 1000;
    if (!/[a-z]/i.test(v))
        return undefined;
    const at = Date.parse(v);
    if (Number.isNaN(at))
        return undefined;
    return Math.max(0, at - now);
}
function looksLikeHtml(res, text) {
    return looksLikeHtmlText(header(res, 'content-type'), text);
}
function normalizeErrors(value) {
    if (!isObject(value))
        return undefined;
    const out = {};
    for (const [field, messages] of Object.entries(value)) {
        if (Array.isArray(messages))
            out[field] = messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)));
        else if (typeof messages === 'string')
            out[field] = [messages];
    }
    return out;
}
function describeBody(body) {
    const message = stringField(body, 'message') ?? stringField(body, 'error');
    if (message)
        return message;
    const errors = normalizeErrors(body.errors);
    if (!errors)
        return undefined;
    return Object.entries(errors)
        .map(([k, v]) => `${k} ${v.join(', ')}`)
        .join('; ');
}
function header(res, name) {
    const v = res.headers[name];
    return Array.isArray(v) ? v[0] : v;
}
function stringField(o, key) {
    const v = o[key];
    return typeof v === 'string' && v ? v : undefined;
}
function parseJson(text) {
    try {
        return JSON.parse(text);
    }
    catch {
        return undefined;
    }
}
