import { StationAgentError, type CodeOf } from '../../src/errors.js';

/** The demo could not finish: the pipeline stalled, or the service holds something else than was written. */
export class DemoError extends StationAgentError {
  readonly code: CodeOf<'DemoError'> = 'ERR_DEMO';
  /** Stopped on request (Ctrl-C), not by a fault. */
  readonly interrupted: boolean;

  constructor(message: string, options: ErrorOptions & { interrupted?: boolean } = {}) {
    super(message, options);
    this.interrupted = options.interrupted === true;
  }
}
