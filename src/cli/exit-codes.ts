/**
 * Exit codes of every command, documented in `--help`. Scripts (and systemd's
 * `Restart=on-failure`) branch on them, so they never change meaning.
 */
export const EXIT = {
  OK: 0,
  /** The command ran and something failed (a doctor check, an item that could not be retried). */
  FAILURE: 1,
  /** Bad flags or arguments. */
  USAGE: 2,
  /** The configuration file, environment or flags are invalid. */
  CONFIG: 3,
  /** The service could not be reached or refused the request. */
  NETWORK: 4,
  /** The queue database could not be opened or is damaged. */
  QUEUE: 5,
} as const;

export const EXIT_CODES_HELP = `
Exit codes:
  0  ok
  1  failure (a check failed, an operation did not complete)
  2  usage error (unknown option, missing argument)
  3  configuration invalid
  4  service unreachable or request refused
  5  queue database unusable`;
