import { StationAgentError } from '../errors.js';

/** The metrics endpoint cannot start: a bad `metrics.listen` value, or the address is taken. */
export class MetricsError extends StationAgentError {
  readonly code = 'ERR_METRICS' as const;
}
