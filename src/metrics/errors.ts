import { StationAgentError, type CodeOf } from '../errors.js';

/** The metrics endpoint cannot start: a bad `metrics.listen` value, or the address is taken. */
export class MetricsError extends StationAgentError {
  readonly code: CodeOf<'MetricsError'> = 'ERR_METRICS';
}
