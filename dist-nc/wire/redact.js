export const REDACTED = '<redacted>';
const STATION_SEGMENT = /(\/stations\/)[^/?#\s"'<>\\]+/g;
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/?#\s"'<>@]+@/gi;
const SECRET_QUERY = /([?&](?:[\w-]*token|auth|key|password|secret)=)[^&#\s"'<>]*/gi;
export function redactText(text, secrets = []) {
    let out = redactSecrets(text, secrets);
    if (out.includes('/stations/'))
        out = out.replace(STATION_SEGMENT, `$1${REDACTED}`);
    if (out.includes('@'))
        out = out.replace(USERINFO, `$1${REDACTED}@`);
    if (out.includes('='))
        out = out.replace(SECRET_QUERY, `$1${REDACTED}`);
    return out;
}
export function redactUrl(url) {
    let parsed;
    try {
        parsed = new URL(url);
    }
    catch {
        return REDACTED;
    }
    const userinfo = parsed.username || parsed.password ? `${REDACTED}@` : '';
    const path = parsed.pathname && parsed.pathname !== '/' ? `/${REDACTED}` : '';
    const query = parsed.search ? `?${REDACTED}` : '';
    const fragment = parsed.hash ? `#${REDACTED}` : '';
    return `${parsed.protocol}//${userinfo}${parsed.host}${path}${query}${fragment}`;
}
export function describeRejected(value) {
    if (typeof value === 'string')
        return value === '' ? '""' : 'a string';
    if (Array.isArray(value))
        return 'a list';
    if (value !== null && typeof value === 'object')
        return 'an object';
    return String(value);
}
export function redactHeaderValues(headers) {
    return Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
}
const MAX_DEPTH = 12;
export function redactDeep(value, secrets = [], options = {}) {
    if (typeof value === 'string')
        return redactText(value, secrets);
    if (value === null || typeof value !== 'object')
        return value;
    return copy(value, { secrets, blankKeys: options.blankKeys, seen: new WeakMap() }, 0);
}
function copy(value, walk, depth) {
    if (typeof value === 'string')
        return redactText(value, walk.secrets);
    if (value === null || typeof value !== 'object')
        return value;
    const { seen, blankKeys } = walk;
    if (seen.has(value))
        return seen.get(value);
    if (depth >= MAX_DEPTH)
        return '[too deep]';
    if (value instanceof Error)
        return copyError(value, walk, depth + 1);
    if (Array.isArray(value)) {
        const out = [];
        seen.set(value, out);
        for (const item of value)
            out.push(copy(item, walk, depth + 1));
        return out;
    }
    if (Buffer.isBuffer(value) || ArrayBuffer.isView(value))
        return `[${value.constructor.name} ${value.byteLength} bytes]`;
    if (typeof value.toJSON === 'function') {
        return copy(value.toJSON(), walk, depth + 1);
    }
    const out = {};
    seen.set(value, out);
    for (const key of Object.keys(value)) {
        const item = value[key];
        out[redactText(key, walk.secrets)] = blankKeys?.has(key) && item !== undefined ? REDACTED : copy(item, walk, depth + 1);
    }
    return out;
}
function copyError(err, walk, depth) {
    const out = Object.create(Object.getPrototypeOf(err));
    walk.seen.set(err, out);
    for (const key of Object.getOwnPropertyNames(err)) {
        const descriptor = Object.getOwnPropertyDescriptor(err, key);
        const raw = descriptor && 'value' in descriptor ? descriptor.value : err[key];
        Object.defineProperty(out, key, {
            value: walk.blankKeys?.has(key) && raw !== undefined ? REDACTED : copy(raw, walk, depth),
            enumerable: descriptor?.enumerable ?? false,
            writable: true,
            configurable: true,
        });
    }
    return out;
}
export function redactSecrets(text, secrets) {
    let out = text;
    for (const secret of expandSecrets(secrets)) {
        if (out.includes(secret))
            out = out.split(secret).join(REDACTED);
    }
    return out;
}
const expanded = new WeakMap();
function expandSecrets(secrets) {
    if (secrets.length === 0)
        return [];
    const kept = expanded.get(secrets);
    if (kept && kept.from.length === secrets.length && kept.from.every((s, k) => s === secrets[k]))
        return kept.to;
    const all = new Set();
    for (const secret of secrets) {
        if (!secret)
            continue;
        all.add(secret);
        all.add(encodeURIComponent(secret));
    }
    const to = [...all].sort((a, b) => b.length - a.length);
    expanded.set(secrets, { from: [...secrets], to });
    return to;
}
export function urlPassword(url) {
    if (!url)
        return null;
    try {
        const password = new URL(url).password;
        return password ? decodeURIComponent(password) : null;
    }
    catch {
        return null;
    }
}
