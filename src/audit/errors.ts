import { StationAgentError, type CodeOf } from '../errors.js';

/** The delivery audit could not read what the service holds (a listing that does not end). Service errors keep their own classes. */
export class AuditError extends StationAgentError {
  readonly code: CodeOf<'AuditError'> = 'ERR_AUDIT';
}
