/** Observability of the daemon: Prometheus metrics, /healthz and /readyz (`metrics.listen`). */
export { createAgentMetrics, type AgentMetrics, type AgentMetricsOptions, type SnapshotSource } from './agent-metrics.js';
export { MetricsError } from './errors.js';
export { parseListenAddress, urlOf, type ListenAddress } from './listen-address.js';
export { checkReadiness, type Readiness, type ReadinessCheck } from './readiness.js';
export { startMetricsServer, type MetricsServer, type MetricsServerOptions } from './server.js';
