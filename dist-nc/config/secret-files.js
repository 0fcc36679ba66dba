import { stat } from 'node:fs/promises';
import { StationAgentError, errorCode } from '../errors.js';
import { rememberSecret } from './secrets-read.js';
import { FileTooLargeError, NotRegularFileError, readRegularFileBounded } from '../system/regular-file.js';
export const SECRET_FILE_MAX_BYTES = 64 * 1024;
export class SecretFileError extends StationAgentError {
    key;
    code = 'ERR_SECRET_FILE';
    constructor(key, problem) {
        super(`${key}: the file ${problem}`);
        this.key = key;
    }
}
export async function readSecretFile(key, file, options = {}) {
    let text;
    let mode;
    try {
        ({ text, mode } = await readRegularFileBounded(file, SECRET_FILE_MAX_BYTES, { followSymlinks: true }));
    }
    catch (err) {
        const hint = errorCode(err) === 'ENOENT' ? ' (the path set there must name a file holding the secret, not the secret itself)' : '';
        throw new SecretFileError(key, fileProblem(err) + hint);
    }
    const value = text.trim();
    if (value === '')
        throw new SecretFileError(key, 'is empty');
    if (options.oneWord && /\s/.test(value))
        throw new SecretFileError(key, 'must hold the secret alone (it has white space inside)');
    rememberSecret(value);
    return { value, looseMode: looseModeText(mode, key, file) };
}
function looseModeText(mode, key, file) {
    if ((mode & 0o077) === 0)
        return null;
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    return `${key}: other users can read the file (mode ${octal}); run: chmod 600 ${file}`;
}
export async function looseModeWarning(file, what) {
    let mode;
    try {
        mode = (await stat(file)).mode;
    }
    catch {
        return null;
    }
    if ((mode & 0o077) === 0)
        return null;
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    return `${what} ${file} holds the station token but other users can read it (mode ${octal}); run: chmod 600 ${file}`;
}
export function fileProblem(err) {
    if (err instanceof NotRegularFileError)
        return `is ${err.kind}, not a regular file`;
    if (err instanceof FileTooLargeError)
        return `is larger than ${err.maxBytes} bytes`;
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
