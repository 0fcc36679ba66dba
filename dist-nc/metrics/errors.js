import { StationAgentError } from '../errors.js';
export class MetricsError extends StationAgentError {
    code = 'ERR_METRICS';
}
