import { StationAgentError } from '../errors.js';

/**
 * A bad emulator option: a stations file, a labels file, a fault spec, a seed.
 * Shares the config code so the CLI exits with the config exit code.
 */
export class EmulatorOptionError extends StationAgentError {
  readonly code = 'ERR_CONFIG_INVALID' as const;
}
