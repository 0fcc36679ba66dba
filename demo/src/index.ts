/** The demo package: what `station-agent demo` runs (the local service and the agent, in one process). */
export { DemoError } from './errors.js';
export { renderSummary } from './render.js';
export { runDemo, type DemoOptions, type DemoResult } from './run-demo.js';
export type { ServiceSummary } from './service-summary.js';
