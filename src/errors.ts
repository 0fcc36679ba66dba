/**
 * The root of station-agent's error classes. Every error the agent raises on purpose
 * carries a stable `code`, so callers (the uploader's decision table, the CLI's exit
 * codes, `--json` output) branch on codes, never on message text.
 */
export abstract class StationAgentError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }

  /** A plain object for logs and `--json` output. Never contains a token. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message };
  }
}

export function errorCode(err: unknown): string {
  if (err instanceof StationAgentError) return err.code;
  if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  return 'ERR_UNKNOWN';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
