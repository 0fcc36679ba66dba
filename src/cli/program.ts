import { Command, CommanderError } from 'commander';
import { errorCode, errorMessage } from '../errors.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
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

/** Parses argv and runs the command, turning errors into one clear line and an exit code. */
export async function runProgram(program: Command, argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here too, with exit code 0.
      return err.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    process.stderr.write(`station-agent: ${errorMessage(err)}\n`);
    return exitCodeFor(err);
  }
}
