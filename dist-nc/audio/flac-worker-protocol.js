import { StationAgentError } from '../errors.js';
import { AudioFileError, FlacEncoderError } from './errors.js';
export function serializeError(err) {
    if (err instanceof AudioFileError) {
        return { name: err.name, code: err.code, message: err.message, file: err.file, reason: err.reason, detail: err.detail };
    }
    if (err instanceof StationAgentError)
        return { name: err.name, code: err.code, message: err.message };
    const code = err?.code;
    return {
        name: err instanceof Error ? err.name : 'Error',
        code: typeof code === 'string' ? code : 'ERR_UNKNOWN',
        message: err instanceof Error ? err.message : String(err),
    };
}
export function deserializeError(e) {
    if (e.code === 'ERR_AUDIO_INVALID' && e.file !== undefined && e.reason !== undefined && e.detail !== undefined) {
        return new AudioFileError(e.file, e.reason, e.detail);
    }
    if (e.code === 'ERR_FLAC_ENCODER')
        return new FlacEncoderError(e.message);
    return Object.assign(new Error(e.message), { code: e.code });
}
