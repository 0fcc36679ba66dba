import { StationAgentError, type CodeOf } from '../errors.js';

/**
 * Why a file was refused. Callers branch on `reason` where "not yet" differs from
 * "never": a file the analyzer is still writing is `empty`, `truncated`, `no-data`
 * or `incomplete` for a while, then becomes valid; the others will never change.
 */
export type AudioFileProblem =
  | 'empty'
  | 'truncated'
  | 'not-riff'
  | 'not-wave'
  | 'no-fmt'
  | 'no-data'
  | 'bad-fmt'
  | 'unsupported-format'
  | 'incomplete'
  | 'no-samples'
  | 'not-flac'
  /** A spool reference whose analyzer's file is gone or another file now (audio/audio-reference.ts). */
  | 'changed';

/** The problems that a file still being written can show before it is finished. */
export const STILL_BEING_WRITTEN: ReadonlySet<AudioFileProblem> = new Set<AudioFileProblem>([
  'empty',
  'truncated',
  'no-data',
  'incomplete',
]);

/**
 * An audio file that cannot be read or encoded: not a WAV/FLAC, a header that makes no
 * sense, a sample format we cannot encode. The message always names the file. For the
 * uploader this is terminal for the soundscape (retrying will not change the file).
 */
export class AudioFileError extends StationAgentError {
  readonly code: CodeOf<'AudioFileError'> = 'ERR_AUDIO_INVALID';
  readonly file: string;
  readonly reason: AudioFileProblem;
  /** The message without the file name. */
  readonly detail: string;

  constructor(file: string, reason: AudioFileProblem, detail: string, options?: ErrorOptions) {
    super(`${file}: ${detail}`, options);
    this.file = file;
    this.reason = reason;
    this.detail = detail;
  }

  override toJSON() {
    return { ...super.toJSON(), file: this.file, reason: this.reason };
  }
}

/**
 * The encoder itself failed (libFLAC refused to start, the worker thread died, the
 * encoder was closed). Not the input file's fault: the job may be retried later.
 */
export class FlacEncoderError extends StationAgentError {
  readonly code: CodeOf<'FlacEncoderError'> = 'ERR_FLAC_ENCODER';
}
