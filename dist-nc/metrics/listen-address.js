import { describeRejected } from '../wire/redact.js';
import { MetricsError } from './errors.js';
export const DEFAULT_METRICS_HOST = '127.0.0.1';
export function parseListenAddress(value) {
    const text = value.trim();
    const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):)?(\d{1,5})$/.exec(text);
    const port = match ? Number(match[2]) : NaN;
    if (!match || port > 65535) {
        throw new MetricsError(`metrics.listen must be host:port or a port, e.g. 127.0.0.1:9464 (got ${describeRejected(value)})`);
    }
    const rawHost = match[1] ?? '';
    const host = rawHost.startsWith('[') ? rawHost.slice(1, -1) : rawHost;
    return { host: host === '' ? DEFAULT_METRICS_HOST : host, port };
}
export function urlOf(host, port) {
    const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
    return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}
