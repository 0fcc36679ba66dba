import { StationAgentError, type CodeOf } from '../errors.js';

/**
 * The configuration (file, environment or flags) is invalid. The message lists every
 * problem on its own line as `<key path> <message>` and names the file, so an operator
 * can fix them all in one go. Never contains a token value.
 */
export class ConfigError extends StationAgentError {
  readonly code: CodeOf<'ConfigError'> = 'ERR_CONFIG_INVALID';
  /** One line per problem, e.g. `upload.concurrency must be between 1 and 16 (got 20)`. */
  readonly problems: readonly string[];
  /** The config file the problems refer to, or null when none was read. */
  readonly file: string | null;

  constructor(problems: readonly string[], file: string | null, context?: string, options?: ErrorOptions) {
    super(renderMessage(problems, file, context), options);
    this.problems = problems;
    this.file = file;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), file: this.file, problems: this.problems };
  }
}

function renderMessage(problems: readonly string[], file: string | null, context?: string): string {
  const where = context ?? (file ? `config file ${file}` : 'no config file');
  if (problems.length === 1) return `invalid configuration (${where}): ${problems[0]}`;
  return `invalid configuration (${where}):\n${problems.map((p) => `  - ${p}`).join('\n')}`;
}
