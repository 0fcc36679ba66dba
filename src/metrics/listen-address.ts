import { describeRejected } from '../wire/redact.js';
import { MetricsError } from './errors.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/** Where the endpoint binds when `metrics.listen` names only a port: this machine only. */
const DEFAULT_METRICS_HOST = '127.0.0.1';

/**
 * Reads `metrics.listen`: `host:port`, `[v6]:port`, or a bare port (`9464`,
 * `:9464`), which binds {@link DEFAULT_METRICS_HOST}. Port 0 picks a free port
 * (tests). The endpoint has no authentication, so it binds loopback unless told
 * otherwise.
 */
export function parseListenAddress(value: string): ListenAddress {
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

/** `http://host:port` for a bound address (IPv6 in brackets; a wildcard address shown as loopback). */
export function urlOf(host: string, port: number): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}
