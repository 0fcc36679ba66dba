import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log/index.js';
import type { Queue } from '../queue/index.js';
import type { UploadObserver } from '../upload/ports.js';
import type { MqttObserver } from '../mqtt/publisher.js';
import { createAgentMetrics, type SnapshotSource } from './agent-metrics.js';
import { MetricsError } from './errors.js';
import { parseListenAddress, urlOf } from './listen-address.js';
import { checkReadiness } from './readiness.js';

/**
 * The daemon's observability endpoint, on plain node:http (one small listener; the
 * daemon does not need a framework for three GET routes):
 *
 * - `GET /metrics`: Prometheus text format (see agent-metrics.ts for the series).
 * - `GET /healthz`: 200 while the process is alive. The answer itself is the proof
 *   that the event loop turns: a wedged loop answers nothing, and the probe times out.
 * - `GET /readyz`: 200 when ready, else 503; both with a JSON body of the checks
 *   (see readiness.ts).
 *
 * No authentication: `metrics.listen` with only a port binds 127.0.0.1. Nothing
 * served carries the token (labels are kinds, states and reasons; messages are
 * the uploader's redacted ones).
 */
export interface MetricsServerOptions {
  /** `metrics.listen`: `host:port` or a port; port 0 picks a free one. */
  listen: string;
  queue: Queue;
  /** The daemon's runtime snapshot; may return null or throw while the daemon starts. */
  snapshot: SnapshotSource;
  log: Logger;
}

export interface MetricsServer {
  /** e.g. `http://127.0.0.1:9464`. */
  url: string;
  /** Chain it into the uploader's observer: it feeds the upload counters and the histogram. */
  observer: UploadObserver;
  /** Chain it into the MQTT publisher's observer. */
  mqttObserver: MqttObserver;
  registry: Registry;
  /** Stops listening and cuts open (keep-alive) connections. */
  close(): Promise<void>;
}

/** A scrape or probe that takes longer than this is cut off. */
const REQUEST_TIMEOUT_MS = 10_000;

export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { queue, snapshot, log } = options;
  const address = parseListenAddress(options.listen);
  const { registry, observer, mqttObserver } = createAgentMetrics({ queue, snapshot });
  const startedAt = Date.now();

  const routes: Record<string, (res: ServerResponse) => Promise<void> | void> = {
    '/metrics': async (res) => {
      const body = await registry.metrics();
      send(res, 200, registry.contentType, body);
    },
    '/healthz': (res) => {
      sendJson(res, 200, { status: 'ok', pid: process.pid, uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) });
    },
    '/readyz': (res) => {
      const readiness = checkReadiness(queue, snapshot);
      sendJson(res, readiness.ready ? 200 : 503, readiness);
    },
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const pathname = (req.url ?? '/').split('?')[0] ?? '/';
    const route = Object.hasOwn(routes, pathname) ? routes[pathname] : undefined;
    if (!route) return sendJson(res, 404, { error: `not found: ${pathname} (try /metrics, /healthz or /readyz)` });
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return sendJson(res, 405, { error: `method ${req.method ?? ''} not allowed` });
    }
    Promise.resolve()
      .then(() => route(res))
      .catch((err: unknown) => {
        log.error(`metrics endpoint: ${pathname} failed: ${errorMessage(err)}`);
        if (!res.headersSent) sendJson(res, 500, { error: errorMessage(err) });
        else res.destroy();
      });
  });
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(new MetricsError(`cannot serve metrics on metrics.listen ${options.listen}: ${err.message}`, { cause: err }));
    };
    server.once('error', onError);
    server.listen({ host: address.host, port: address.port }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (err) => log.error(`metrics endpoint: ${err.message}`));
  // The endpoint alone never keeps a stopping process alive.
  server.unref();

  const bound = server.address() as AddressInfo;
  const url = urlOf(address.host, bound.port);
  log.info({ url }, 'metrics endpoint listening (/metrics, /healthz, /readyz)');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  return { url, observer, mqttObserver, registry, close };
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', `${JSON.stringify(value)}\n`);
}
