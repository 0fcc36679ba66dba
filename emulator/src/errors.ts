import { EmulatorError } from './error-base.js';

/**
 * A bad emulator option: a stations file, a labels file, a fault spec, a seed.
 * Shares the config code so the CLI exits with the config exit code.
 */
export class EmulatorOptionError extends EmulatorError {
  readonly code = 'ERR_CONFIG_INVALID' as const;
}
