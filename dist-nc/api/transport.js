import { connectionPool } from './pool.js';
import { VERSION } from '../version.js';
import { ServiceRejectedError } from './errors.js';
import { send } from './http.js';
import { errorCode as codeOf } from '../errors.js';
import { redactDeep, redactText, redactUrl, REDACTED } from '../wire/redact.js';
import { readJsonObject } from './response.js';
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_UPLOAD_TIMEOUT_MS = 120_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_CONNECTIONS = 4;
export class Transport {
    #prefix;
    #token;
    #replaced = [];
    #adminToken;
    #stationId;
    #pool;
    #userAgent;
    #onResponse;
    timeoutMs;
    uploadTimeoutMs;
    constructor(options) {
        const url = parseBaseUrl(options.baseUrl);
        this.#prefix = url.pathname.replace(/\/+$/, '');
        const { token, adminToken, stationId } = options;
        if (token !== undefined && (typeof token !== 'string' || token === '')) {
            throw new TypeError('ServiceClient option "token" must be a non-empty string');
        }
        if (adminToken !== undefined || stationId !== undefined) {
            if (token !== undefined)
                throw new TypeError('ServiceClient: give either "token" or "adminToken" with "stationId", not both');
            if (typeof adminToken !== 'string' || adminToken === '') {
                throw new TypeError('ServiceClient option "adminToken" must be a non-empty string when "stationId" is given');
            }
            if (!Number.isSafeInteger(stationId) || stationId <= 0) {
                throw new TypeError(`ServiceClient option "stationId" must be a positive integer, got ${String(stationId)}`);
            }
        }
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
    get secrets() {
        return [this.#token, this.#adminToken, ...this.#replaced];
    }
    setToken(token) {
        if (typeof token !== 'string' || token === '')
            throw new TypeError('ServiceClient token must be a non-empty string');
        if (this.#token === undefined)
            throw new TypeError('ServiceClient: setToken needs a client made with a station token');
        if (token === this.#token)
            return;
        this.#replaced.push(this.#token);
        this.#token = token;
    }
    get adminMode() {
        return this.#adminToken !== undefined;
    }
    async exchange(x) {
        const { real, shown } = this.#paths(x);
        const query = x.query ?? '';
        const secrets = this.secrets;
        const display = redactText(`${x.method} ${shown}${query}`, secrets);
        const headers = { accept: 'application/json', 'user-agent': this.#userAgent };
        if (this.#adminToken !== undefined)
            headers.authorization = `Bearer ${this.#adminToken}`;
        let body;
        let bytesSent = () => 0;
        if (x.json !== undefined) {
            const text = JSON.stringify(x.json);
            headers['content-type'] = 'application/json';
            body = text;
            bytesSent = () => Buffer.byteLength(text);
        }
        else if (x.stream) {
            headers['content-type'] = x.stream.contentType;
            if (x.stream.size !== undefined)
                headers['content-length'] = String(x.stream.size);
            body = x.stream.body;
            bytesSent = x.stream.bytesSent;
        }
        const started = performance.now();
        const ctx = { display, secrets };
        let status = 0;
        let errorCode;
        try {
            const res = await send(this.#pool, {
                method: x.method,
                path: `${real}${query}`,
                display,
                headers,
                body,
                timeoutMs: x.timeoutMs,
                signal: x.signal,
                secrets,
            });
            status = res.status;
            return { json: readJsonObject(res, ctx), status, display };
        }
        catch (err) {
            errorCode = codeOf(err);
            throw err;
        }
        finally {
            if (this.#onResponse) {
                this.#report({
                    method: x.method,
                    path: `${shown}${query}`,
                    status,
                    durationMs: performance.now() - started,
                    bytesSent: errorCode === 'ERR_NETWORK_BEFORE_SEND' ? 0 : bytesSent(),
                    ...(errorCode ? { errorCode } : {}),
                });
            }
        }
    }
    rejected(result, message, field) {
        return new ServiceRejectedError(message, result.display, result.status, redactDeep(result.json, this.secrets), field);
    }
    async close() {
        await this.#pool.close();
    }
    #paths(x) {
        const base = `${this.#prefix}/api/v1`;
        const shownBase = this.#prefix ? `/${REDACTED}/api/v1` : '/api/v1';
        if (!x.station)
            return { real: `${base}${x.path}`, shown: `${shownBase}${x.path}` };
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
    #report(info) {
        if (!this.#onResponse)
            return;
        try {
            this.#onResponse(info);
        }
        catch {
        }
    }
}
export function callOptions(arg) {
    if (arg === undefined)
        return {};
    if (arg instanceof AbortSignal)
        return { signal: arg };
    return arg;
}
function parseBaseUrl(baseUrl) {
    let url;
    try {
        url = new URL(baseUrl);
    }
    catch {
        throw new TypeError(`ServiceClient option "baseUrl" must be an absolute http(s) URL, got "${redactUrl(baseUrl)}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new TypeError(`ServiceClient option "baseUrl" must use http or https, got "${url.protocol}"`);
    }
    if (url.search || url.hash)
        throw new TypeError('ServiceClient option "baseUrl" must not carry a query or fragment');
    return url;
}
function positive(name, value, fallback) {
    if (value === undefined)
        return fallback;
    if (!Number.isFinite(value) || value <= 0)
        throw new TypeError(`ServiceClient option "${name}" must be a positive number, got ${String(value)}`);
    return value;
}
