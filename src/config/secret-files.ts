import { stat } from 'node:fs/promises';
import { StationAgentError, type CodeOf, errorCode } from '../errors.js';
import { addSecret } from '../wire/redact.js';
import { FileTooLargeError, NotRegularFileError, readRegularFileBounded } from '../system/regular-file.js';

/**
 * The one way the agent reads a file that holds a secret: the station token
 * (`service.tokenFile`, `--admin-token-file`), the webhook secret
 * (`alerts.webhook.secretFile`) and the MQTT password (`mqtt.passwordFile`).
 *
 * - Only a regular file is read, and never in a way that can block: a FIFO put in place
 *   of the token file would otherwise hold one of libuv's four file-system threads at
 *   every reload until a writer comes (`system/regular-file.ts` has the why). A symbolic
 *   link is followed (secrets are often linked in from a mounted folder), its target
 *   must be regular.
 * - At most `SECRET_FILE_MAX_BYTES` are read: a secret is a line, not a log file.
 * - Errors are `SecretFileError`s that name the config key and what is wrong, never the
 *   content and never the path: a token pasted into `service.tokenFile` by mistake *is*
 *   the path, and the message reaches the journal. (The operator finds the path in
 *   their own config.)
 * - A file other users can read gets a warning naming the key (`looseMode`).
 */
export const SECRET_FILE_MAX_BYTES = 64 * 1024;

export class SecretFileError extends StationAgentError {
  readonly code: CodeOf<'SecretFileError'> = 'ERR_SECRET_FILE';

  constructor(
    /** The config key (or flag) that names the file, e.g. `service.tokenFile`. */
    readonly key: string,
    problem: string,
  ) {
    super(`${key}: the file ${problem}`);
  }
}

export interface SecretFile {
  /** The file's text, trimmed of white space around it. */
  value: string;
  /** A warning naming the key when group or others can read the file, else null. */
  looseMode: string | null;
}

export interface ReadSecretOptions {
  /** Refuse white space inside the value (a token is one word; a password may hold spaces). */
  oneWord?: boolean;
}

/**
 * The secret in `file`, trimmed, named by `key` in every message.
 *
 * @example
 * const { value, looseMode } = await readSecretFile('mqtt.passwordFile', '/etc/station-agent/mqtt-password');
 */
export async function readSecretFile(key: string, file: string, options: ReadSecretOptions = {}): Promise<SecretFile> {
  let text: string;
  let mode: number;
  try {
    ({ text, mode } = await readRegularFileBounded(file, SECRET_FILE_MAX_BYTES, { followSymlinks: true }));
  } catch (err) {
    const hint = errorCode(err) === 'ENOENT' ? ' (the path set there must name a file holding the secret, not the secret itself)' : '';
    throw new SecretFileError(key, fileProblem(err) + hint);
  }
  const value = text.trim();
  if (value === '') throw new SecretFileError(key, 'is empty');
  if (options.oneWord && /\s/.test(value)) throw new SecretFileError(key, 'must hold the secret alone (it has white space inside)');
  addSecret(value);
  return { value, looseMode: looseModeText(mode, key, file) };
}

function looseModeText(mode: number, key: string, file: string): string | null {
  if ((mode & 0o077) === 0) return null;
  const octal = (mode & 0o777).toString(8).padStart(4, '0');
  return `${key}: other users can read the file (mode ${octal}); run: chmod 600 ${file}`;
}

/**
 * A warning when `file`'s mode lets group or others at it (mode & 0o077), else null: for
 * a config file that holds the token itself.
 */
export async function looseModeWarning(file: string, what: string): Promise<string | null> {
  let mode: number;
  try {
    mode = (await stat(file)).mode;
  } catch {
    return null;
  }
  if ((mode & 0o077) === 0) return null;
  const octal = (mode & 0o777).toString(8).padStart(4, '0');
  return `${what} ${file} holds the station token but other users can read it (mode ${octal}); run: chmod 600 ${file}`;
}

/** Why a file could not be read, in words, from its errno code (or the regular-file check). */
export function fileProblem(err: unknown): string {
  if (err instanceof NotRegularFileError) return `is ${err.kind}, not a regular file`;
  if (err instanceof FileTooLargeError) return `is larger than ${err.maxBytes} bytes`;
  const code = err && typeof err === 'object' && 'code' in err ? String(err.code) : '';
  switch (code) {
    case 'ENOENT':
      return 'does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'is not readable by this user';
    case 'EISDIR':
      return 'is a folder, not a file';
    default:
      return `cannot be read (${code || 'unknown error'})`;
  }
}
