/** The audio folder's public API: WAV headers, FLAC encoding, FLAC headers. */
export { AudioFileError, FlacEncoderError, STILL_BEING_WRITTEN } from './errors.js';
export type { AudioFileProblem } from './errors.js';
export { isWavComplete, readWavInfo } from './wav.js';
export type { WavInfo } from './wav.js';
export type { BextInfo } from './riff-metadata.js';
export { readFlacInfo } from './flac-info.js';
export type { FlacInfo } from './flac-info.js';
export { createFlacEncoder } from './flac-encoder.js';
export { checkFlacEncoder } from './flac-check.js';
export type { FlacEncoderCheck } from './flac-check.js';
export type {
  EncodeJobOptions,
  EncodeResult,
  FlacCompressionLevel,
  EncodedFlac,
  FlacEncoder,
  FlacEncoderOptions,
  FlacEngineChoice,
} from './flac-encoder.js';
