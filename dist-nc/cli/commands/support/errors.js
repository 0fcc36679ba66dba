import { StationAgentError } from '../../../errors.js';
export class UsageError extends StationAgentError {
    code = 'ERR_USAGE';
}
export class CommandFailure extends StationAgentError {
    code = 'ERR_COMMAND_FAILED';
}
