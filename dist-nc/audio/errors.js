import { StationAgentError } from '../errors.js';
export const STILL_BEING_WRITTEN = new Set([
    'empty',
    'truncated',
    'no-data',
    'incomplete',
]);
export class AudioFileError extends StationAgentError {
    code = 'ERR_AUDIO_INVALID';
    file;
    reason;
    detail;
    constructor(file, reason, detail, options) {
        super(`${file}: ${detail}`, options);
        this.file = file;
        this.reason = reason;
        this.detail = detail;
    }
    toJSON() {
        return { ...super.toJSON(), file: this.file, reason: this.reason };
    }
}
export class FlacEncoderError extends StationAgentError {
    code = 'ERR_FLAC_ENCODER';
}
