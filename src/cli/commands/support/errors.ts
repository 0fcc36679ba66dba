import { StationAgentError, type CodeOf } from '../../../errors.js';

/**
 * Flags or arguments that do not fit together (`--station-id` without an admin
 * token, `queue drop` without ids). Exit code 2, like commander's own usage errors.
 */
export class UsageError extends StationAgentError {
  readonly code: CodeOf<'UsageError'> = 'ERR_USAGE';
}

/**
 * The command ran and could not do what was asked (no such queue item, a doctor
 * check failed). Exit code 1.
 */
export class CommandFailure extends StationAgentError {
  readonly code: CodeOf<'CommandFailure'> = 'ERR_COMMAND_FAILED';
}
