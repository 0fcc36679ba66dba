import { pino, type DestinationStream, type Logger } from 'pino';
import { SECRET_FIELDS, redactDeep, redactText } from '../wire/redact.js';

/**
 * The agent's logger: pino, JSON lines on standard output (the journal under systemd),
 * with every secret kept out of every line by two nets, both reading the process's one
 * secret registry (`src/wire/redact.ts`: whoever reads a secret adds it there, before
 * anything could log it):
 *
 * 1. `hooks.logMethod` (and `formatters.bindings` for child loggers) copy what is logged
 *    once (`redactDeep`, `src/wire/redact.ts`), and in that one pass blank token-bearing
 *    fields by name (`SECRET_FIELDS`, at any depth) and redact every string: the
 *    message, format arguments, objects, errors with their message, stack and cause.
 *    Registered secrets, `/stations/<segment>` path segments (a URL may be logged before
 *    anyone knows which token is in it), URL userinfo and token query values all become
 *    `<redacted>`.
 * 2. `hooks.streamWrite` redacts the finished line once more, for anything that reached
 *    the output another way (a serializer, a getter).
 *
 * (pino's own `redact` paths were a third pass over every line, and the costliest: the
 * names are blanked in the copy instead, at any depth rather than at listed paths.)
 */

export type { Logger } from 'pino';

export interface CreateLoggerOptions {
  /** pino level: fatal, error, warn, info, debug, trace or silent. */
  level: string;
  /** Where lines go; default standard output, written synchronously (no lines lost on a crash). */
  destination?: DestinationStream;
}

const blank = { blankKeys: SECRET_FIELDS };

export function createLogger(options: CreateLoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        bindings: (bindings) => redactDeep(bindings, blank),
      },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg) => redactDeep(arg, blank)) as Parameters<typeof method>;
          method.apply(this, scrubbed);
        },
        streamWrite: (line) => redactText(line),
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
