/**
 * The secrets this process has read: the station token (from the config file, the
 * environment or `service.tokenFile`) and every secret file (`readSecretFile`). A tired
 * operator may paste the token into any setting (`input.dir`, `dataDir`, a file name), and
 * a command prints settings as they are: the CLI's output hides every secret listed here
 * (cli/format/output.ts). Process-wide on purpose: the CLI reads the config in one place
 * and prints in many. (The daemon's logger is given its secrets directly: log/logger.ts.)
 *
 * Values shorter than {@link MIN_SECRET_LENGTH} are not listed: a test config's token `x`
 * would otherwise blank every `x` of the output, and no real token is that short.
 */
export const MIN_SECRET_LENGTH = 8;

const read = new Set<string>();

/** Notes a secret this process has read. */
export function rememberSecret(value: string | null | undefined): void {
  if (value && value.length >= MIN_SECRET_LENGTH) read.add(value);
}

/** Every secret this process has read so far. */
export function secretsRead(): readonly string[] {
  return [...read];
}
