import { readFile, stat } from 'node:fs/promises';

/** Files that hold a token should be readable by their owner only. */

/** A warning when the file's mode lets group or others at it (mode & 0o077), else null. */
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

/** Why a file could not be read, in words, from its errno code. */
export function fileProblem(err: unknown): string {
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

/**
 * The token in a token file, trimmed. Throws a `TokenFileProblem` naming the key, never
 * the path: a token pasted into `service.tokenFile` by mistake is the path, and the
 * message reaches the journal. (The operator finds the path in their own config.)
 */
export async function readTokenFile(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new TokenFileProblem(`service.tokenFile: the file ${fileProblem(err)} (the path set there must name a file holding the token, not the token itself)`);
  }
  const token = text.trim();
  if (token === '') throw new TokenFileProblem('service.tokenFile: the file is empty');
  if (/\s/.test(token)) {
    throw new TokenFileProblem('service.tokenFile: the file must hold the token alone (it has white space inside)');
  }
  return token;
}

export class TokenFileProblem extends Error {}
