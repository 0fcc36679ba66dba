import type { ExitKind } from '../errors.js';

/**
 * Exit codes of every command, documented in `--help` and docs/OPERATOR.md ("Exit codes",
 * held against {@link EXIT_MEANINGS} by test/lint/error-codes.test.ts). Scripts (and
 * systemd's `Restart=on-failure`) branch on them, so they never change meaning. A failed
 * command's code follows from its error's class: the register's `exit` (src/errors.ts).
 */
export const EXIT = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  CONFIG: 3,
  NETWORK: 4,
  QUEUE: 5,
} as const satisfies Record<'OK' | ExitKind, number>;

/** Each exit code's meaning: `label` in `--help`, `meaning` in docs/OPERATOR.md. */
export const EXIT_MEANINGS = {
  OK: { label: 'ok', meaning: 'ok' },
  FAILURE: {
    label: 'failure (a check failed, an operation did not complete)',
    meaning: 'the command ran and something failed (a doctor check, an item that could not be retried, a file that could not be ingested)',
  },
  USAGE: { label: 'usage error (unknown option, missing argument)', meaning: 'usage error: unknown option, bad value (`--period year`), missing argument' },
  CONFIG: { label: 'configuration invalid', meaning: 'the configuration (file, environment or flags) is invalid' },
  NETWORK: { label: 'service unreachable or request refused', meaning: 'the service could not be reached or refused the request' },
  QUEUE: { label: 'queue database unusable', meaning: 'the queue database cannot be opened or is damaged' },
} as const satisfies Record<keyof typeof EXIT, { label: string; meaning: string }>;

export const EXIT_CODES_HELP = `
Exit codes:
${(Object.keys(EXIT) as (keyof typeof EXIT)[]).map((k) => `  ${EXIT[k]}  ${EXIT_MEANINGS[k].label}`).join('\n')}`;
