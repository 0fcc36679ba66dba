import { AudioFileError } from '../audio/errors.js';
import { NotRegularFileError } from '../system/regular-file.js';
export const MAX_IN_MEMORY_WAV_BYTES = 8 * 1024 * 1024;
export const MAX_HELD_WAV_BYTES = 16 * 1024 * 1024;
export function isAudioFault(err) {
    return err instanceof AudioFileError || err instanceof NotRegularFileError || err?.code === 'ENOENT';
}
export const SPOOL_WAV = { allowIncomplete: true };
