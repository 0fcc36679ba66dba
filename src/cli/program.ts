import { Command, CommanderError } from 'commander';
import { EXIT, StationAgentError, errorCode, errorMessage, exitKind } from '../errors.js';
import { knownSecrets, redactDeep, redactSecrets } from '../wire/redact.js';
import { EXIT_CODES_HELP } from './exit-codes.js';
import { writeJson } from './format/json.js';
import { VERSION } from '../version.js';

/** A command's registration function: adds itself (and its subcommands) to the program. */
export type RegisterCommand = (program: Command) => void;

/** The documented exit code of a failed command: by its error's class, as the register says (src/errors.ts). */
function exitCodeFor(err: unknown): number {
  return EXIT[exitKind(err)];
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
    // Usage errors echo the argument, which may be a pasted token: runProgram prints them, redacted.
    .configureOutput({ outputError: (text) => void usageErrors.push(text), writeErr: (text) => void usageErrors.push(text) })
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
    process.stderr.write(usageErrors.splice(0).join(''));
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (err) {
    // --help and --version end through here too, with exit code 0.
    if (err instanceof CommanderError && err.exitCode === 0) {
      process.stderr.write(usageErrors.splice(0).join(''));
      return EXIT.OK;
    }
    // A message may show an argument or a setting the token was pasted into (a folder, a file name).
    if (knownSecrets().length === 0) await learnSecrets(argv);
    const hide = (text: string) => redactSecrets(text);
    if (err instanceof CommanderError) {
      process.stderr.write(hide(usageErrors.splice(0).join('')));
      if (json) writeJson(process.stdout, { error: { code: 'ERR_USAGE', message: hide(err.message.replace(/^error: /, '')) } });
      return EXIT.USAGE;
    }
    process.stderr.write(hide(`station-agent: ${errorMessage(err)}\n`));
    if (json) writeJson(process.stdout, { error: errorJson(err) });
    return exitCodeFor(err);
  }
}

/** What commander would have written to stderr for a usage error (see buildProgram). */
const usageErrors: string[] = [];

/**
 * A command that failed before reading the config (a usage error, an invalid item id) has
 * not learnt the token yet: read it now, from the config the arguments name (or the
 * default) and the environment, so that it can be hidden. Best effort: a config that does
 * not load teaches nothing. Only failures pay for it.
 */
async function learnSecrets(argv: readonly string[]): Promise<void> {
  const args = argv.slice(2);
  const at = args.findIndex((a) => a === '--config' || a.startsWith('--config='));
  const named = at < 0 ? undefined : args[at].startsWith('--config=') ? args[at].slice('--config='.length) : args[at + 1];
  try {
    const { loadConfig } = await import('../config/load.js');
    await loadConfig({ path: named, cache: false, unreadableTokenFile: 'report' });
  } catch {
    // Invalid or missing: whatever token it held was added to the secret registry as it was read (src/wire/redact.ts).
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
