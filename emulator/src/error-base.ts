/**
 * The root of the local service's error classes. The emulator shares only `src/wire/`
 * with the agent, so its errors are its own; like the agent's, each carries a stable
 * `code`, which the CLI's exit codes read (`errorCode` falls back to a `code` property).
 */
export abstract class EmulatorError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }

  /** A plain object for logs. Never contains a token. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message };
  }
}
