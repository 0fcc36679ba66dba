import { NetworkError, OutcomeUnknownError } from './errors.js';
import { deadline } from '../system/deadline.js';
import { redactText } from '../wire/redact.js';
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
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
const DESCRIPTIONS = {
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
    ERR_RESPONSE_TOO_LARGE: `response larger than ${MAX_RESPONSE_BYTES} bytes`,
    ERR_POOL_CLOSED: 'the client was closed',
};
const ready = new WeakSet();
export function send(pool, req) {
    const done = exchange(pool, req);
    pool.track(done);
    return done;
}
function exchange(pool, req) {
    return new Promise((resolve, reject) => {
        const { signal } = req;
        let settled = false;
        let started = false;
        let connectTimer;
        const current = {};
        const chunks = [];
        let received = 0;
        if (!pool.open) {
            reject(transportError(codeError('ERR_POOL_CLOSED', 'the client was closed'), false, req));
            return;
        }
        const limit = deadline(req.timeoutMs, signal);
        const finish = (err, res) => {
            if (settled)
                return;
            settled = true;
            clearTimeout(connectTimer);
            limit.clear();
            limit.signal.removeEventListener('abort', onAbort);
            if (err) {
                current.request?.destroy();
                reject(err);
            }
            else
                resolve(res);
        };
        const fail = (err, code) => finish(transportError(err, started, req, code));
        function onAbort() {
            fail(abortError(limit.signal), limit.expired ? 'ERR_DEADLINE' : 'ABORTED');
        }
        if (limit.signal.aborted) {
            fail(abortError(limit.signal), 'ABORTED');
            return;
        }
        limit.signal.addEventListener('abort', onAbort, { once: true });
        let r;
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
        }
        catch (err) {
            fail(asError(err));
            return;
        }
        current.request = r;
        r.on('error', (err) => fail(err));
        r.once('socket', (socket) => {
            if (settled)
                return;
            if (ready.has(socket) || !socket.connecting) {
                started = true;
                return;
            }
            connectTimer = setTimeout(() => fail(codeError('ERR_CONNECT_TIMEOUT', `no connection within ${pool.connectTimeoutMs} ms`)), pool.connectTimeoutMs);
            socket.once(pool.secure ? 'secureConnect' : 'connect', () => {
                ready.add(socket);
                clearTimeout(connectTimer);
                if (!settled)
                    started = true;
            });
        });
        r.setTimeout(req.timeoutMs, () => fail(codeError('ETIMEDOUT', `no data for ${req.timeoutMs} ms`)));
        r.on('response', (res) => {
            res.on('data', (chunk) => {
                received += chunk.length;
                if (received > MAX_RESPONSE_BYTES) {
                    fail(codeError('ERR_RESPONSE_TOO_LARGE', DESCRIPTIONS.ERR_RESPONSE_TOO_LARGE));
                    return;
                }
                chunks.push(chunk);
            });
            res.on('end', () => finish(null, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
            res.on('error', (err) => fail(err));
            res.on('close', () => {
                if (!res.complete)
                    fail(codeError('ECONNRESET', 'connection closed before the response was complete'));
            });
        });
        const { body } = req;
        if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) {
            r.end(body);
        }
        else {
            body.once('error', (err) => r.destroy(err));
            body.pipe(r);
        }
    });
}
export function transportError(err, started, req, forcedCode) {
    const code = forcedCode ?? systemCode(err);
    const description = (code && DESCRIPTIONS[code]) ?? 'transport error';
    const detail = redactText(err.message, req.secrets);
    const suffix = `${code ? ` (${code})` : ''}${detail && detail !== description ? `: ${detail}` : ''}`;
    if (!started || (code !== undefined && CONNECT_PHASE_CODES.has(code))) {
        return new NetworkError(`request not sent: ${description}${suffix}`, req.display, code, { cause: err });
    }
    return new OutcomeUnknownError(`outcome unknown, the request was (at least partly) sent: ${description}${suffix}`, req.display, code, { cause: err });
}
export function systemCode(err) {
    for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
        if ('code' in e && typeof e.code === 'string')
            return e.code;
        if ('errors' in e && Array.isArray(e.errors) && e.errors.length) {
            const inner = systemCode(e.errors[0]);
            if (inner)
                return inner;
        }
        e = 'cause' in e ? e.cause : undefined;
    }
    return undefined;
}
function abortError(signal) {
    const reason = signal?.reason;
    return reason instanceof Error ? reason : new Error('aborted by the caller');
}
function asError(err) {
    return err instanceof Error ? err : new Error(String(err));
}
function codeError(code, message) {
    return Object.assign(new Error(message), { code });
}
