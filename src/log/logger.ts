import { pino, type DestinationStream, type Logger } from 'pino';
import { redactDeep, redactText } from '../wire/redact.js';

/**
 * The agent's logger: pino, JSON lines on standard output (the journal under systemd),
 * with the station token kept out of every line by two nets:
 *
 * 1. `hooks.logMethod` (and `formatters.bindings` for child loggers) copy what is logged
 *    once (`redactDeep`, `src/wire/redact.ts`), and in that one pass blank token-bearing
 *    fields by name ({@link LOG_REDACT_KEYS}, at any depth) and redact every string: the
 *    message, format arguments, objects, errors with their message, stack and cause.
 *    Literal secrets, `/stations/<segment>` path segments (a URL may be logged before
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
  /** The station token, removed from every line. May also be added later with `addLogSecrets`. */
  token?: string | null | undefined;
  /** Further secrets (the admin token). */
  secrets?: readonly (string | null | undefined)[];
  /** Where lines go; default standard output, written synchronously (no lines lost on a crash). */
  destination?: DestinationStream;
}

/** Field names whose values are blanked whatever they hold, at any depth (`token`, `headers.authorization`, ...). */
export const LOG_REDACT_KEYS: ReadonlySet<string> = new Set(['token', 'adminToken', 'authorization', 'x-auth-token']);

const secretLists = new WeakMap<Logger, string[]>();

export function createLogger(options: CreateLoggerOptions): Logger {
  const secrets: string[] = [];
  const addSecrets = (values: readonly (string | null | undefined)[]) => {
    for (const value of values) if (value && !secrets.includes(value)) secrets.push(value);
  };
  addSecrets([options.token, ...(options.secrets ?? [])]);
  const blank = { blankKeys: LOG_REDACT_KEYS };

  const logger = pino(
    {
      level: options.level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        bindings: (bindings) => redactDeep(bindings, secrets, blank),
      },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg) => redactDeep(arg, secrets, blank)) as Parameters<typeof method>;
          method.apply(this, scrubbed);
        },
        streamWrite: (line) => redactText(line, secrets),
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
  secretLists.set(logger, secrets);
  return logger;
}

/**
 * Adds secrets to a logger made by `createLogger` (and its children), e.g. once the
 * token is read after the logger already exists.
 */
export function addLogSecrets(logger: Logger, ...values: (string | null | undefined)[]): void {
  let root: Logger | undefined = logger;
  let list = secretLists.get(root);
  // Child loggers inherit from their parent through the prototype chain.
  while (!list && root) {
    root = Object.getPrototypeOf(root) as Logger | undefined;
    list = root ? secretLists.get(root) : undefined;
  }
  if (!list) throw new Error('addLogSecrets: not a logger made by createLogger');
  for (const value of values) if (value && !list.includes(value)) list.push(value);
}
