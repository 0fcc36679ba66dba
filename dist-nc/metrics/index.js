export { createAgentMetrics } from './agent-metrics.js';
export { MetricsError } from './errors.js';
export { DEFAULT_METRICS_HOST, parseListenAddress, urlOf } from './listen-address.js';
export { checkReadiness } from './readiness.js';
export { startMetricsServer } from './server.js';
