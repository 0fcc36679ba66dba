import { Command, CommanderError } from 'commander';
import { StationAgentError, errorCode, errorMessage } from '../errors.js';
import { redactDeep, redactSecrets } from '../wire/redact.js';
import { secretsRead } from '../config/secrets-read.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { writeJson } from './format/json.js';
import { VERSION } from '../version.js';

/** A command's registration function: adds itself (and its subcommands) to the program. */
export type RegisterCommand = (program: Command) => void;

/** Maps an error's stable code to the documented exit code. */
export function exitCodeFor(err: unknown): number {
  const code = errorCode(err);
  if (code === 'ERR_CONFIG_INVALID') return EXIT.CONFIG;
  // Only the database itself being unusable is exit 5; a missing or refused item is an ordinary failure.
  if (code === 'ERR_QUEUE') return EXIT.QUEUE;
  if (
    code === 'ERR_NETWORK_BEFORE_SEND' ||
    code === 'ERR_OUTCOME_UNKNOWN' ||
    code === 'ERR_HTTP_STATUS' ||
    code === 'ERR_SERVICE_REJECTED'
  ) {
    return EXIT.NETWORK;
  }
  if (code === 'ERR_USAGE') return EXIT.USAGE;
  return EXIT.FAILURE;
}

export function buildProgram(commands: RegisterCommand[]): Command {
  const program = new Command('station-agent')
    .description(
      'Station-side edge agent for acoustic monitoring stations: watches the analyzer output folder,\n' +
        'queues soundscapes and detections durably, uploads them to the service exactly once.',
    )
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', EXIT_CODES_HELP)
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

/**
 * Parses argv and runs the command, turning errors into one clear line (stderr) and an
 * exit code. This is the one place that shapes a failed command's output:
 *
 * With `--json`, stdout carries JSON in every outcome. A command that fails prints
 * `{"error": {"code": "ERR_...", "message": "...", ...}}` (the error's stable code, its
 * message, and the fields of its `toJSON()`, such as a config error's `problems` or an
 * HTTP error's `status`), and the exit code says what kind of failure it was. Usage
 * errors that commander finds (unknown option, missing argument) are `ERR_USAGE`.
 */
export async function runProgram(program: Command, argv: string[]): Promise<number> {
  const json = wantsJson(argv);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here too, with exit code 0.
      if (err.exitCode === 0) return EXIT.OK;
      // commander has written its message to stderr already.
      if (json) writeJson(process.stdout, { error: { code: 'ERR_USAGE', message: err.message.replace(/^error: /, '') } });
      return EXIT.USAGE;
    }
    // A message may show a setting the token was pasted into (a folder, a file name).
    process.stderr.write(redactSecrets(`station-agent: ${errorMessage(err)}\n`, secretsRead()));
    if (json) writeJson(process.stdout, { error: redactDeep(errorJson(err), secretsRead()) });
    return exitCodeFor(err);
  }
}

/** `--json` among the arguments (before a `--` that ends the options). */
function wantsJson(argv: readonly string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).includes('--json');
}

/** The `error` object of `--json` output: stable code first, message, then the error's own fields; redacted. */
function errorJson(err: unknown): Record<string, unknown> {
  const fields = err instanceof StationAgentError ? err.toJSON() : {};
  delete fields.name;
  return redactDeep({ ...fields, code: errorCode(err), message: errorMessage(err) });
}
