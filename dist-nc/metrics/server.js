import { createServer } from 'node:http';
import { errorMessage } from '../errors.js';
import { createAgentMetrics } from './agent-metrics.js';
import { MetricsError } from './errors.js';
import { parseListenAddress, urlOf } from './listen-address.js';
import { checkReadiness } from './readiness.js';
const REQUEST_TIMEOUT_MS = 10_000;
export async function startMetricsServer(options) {
    const { queue, snapshot, log } = options;
    const address = parseListenAddress(options.listen);
    const { registry, observer, mqttObserver } = createAgentMetrics({ queue, snapshot });
    const startedAt = Date.now();
    const routes = {
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
    const server = createServer((req, res) => {
        const pathname = (req.url ?? '/').split('?')[0] ?? '/';
        const route = Object.hasOwn(routes, pathname) ? routes[pathname] : undefined;
        if (!route)
            return sendJson(res, 404, { error: `not found: ${pathname} (try /metrics, /healthz or /readyz)` });
        if (req.method !== 'GET' && req.method !== 'HEAD') {
            res.setHeader('allow', 'GET, HEAD');
            return sendJson(res, 405, { error: `method ${req.method ?? ''} not allowed` });
        }
        Promise.resolve()
            .then(() => route(res))
            .catch((err) => {
            log.error(`metrics endpoint: ${pathname} failed: ${errorMessage(err)}`);
            if (!res.headersSent)
                sendJson(res, 500, { error: errorMessage(err) });
            else
                res.destroy();
        });
    });
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    server.headersTimeout = REQUEST_TIMEOUT_MS;
    await new Promise((resolve, reject) => {
        const onError = (err) => {
            reject(new MetricsError(`cannot serve metrics on metrics.listen ${options.listen}: ${err.message}`, { cause: err }));
        };
        server.once('error', onError);
        server.listen({ host: address.host, port: address.port }, () => {
            server.off('error', onError);
            resolve();
        });
    });
    server.on('error', (err) => log.error(`metrics endpoint: ${err.message}`));
    server.unref();
    const bound = server.address();
    const url = urlOf(address.host, bound.port);
    log.info({ url }, 'metrics endpoint listening (/metrics, /healthz, /readyz)');
    let closing;
    const close = () => (closing ??= new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
    }));
    return { url, observer, mqttObserver, registry, close };
}
function send(res, status, contentType, body) {
    res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
    res.end(res.req.method === 'HEAD' ? undefined : body);
}
function sendJson(res, status, value) {
    send(res, status, 'application/json; charset=utf-8', `${JSON.stringify(value)}\n`);
}
