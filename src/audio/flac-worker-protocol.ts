import { StationAgentError } from '../errors.js';
import { AudioFileError, FlacEncoderError } from './errors.js';
import type { AudioFileProblem } from './errors.js';
import type { EncodeJob, EncodeResult } from './flac-encode-job.js';

/** Messages between flac-encoder.ts and flac-worker.ts (structured clone: plain data only). */
export interface WorkerRequest {
  id: number;
  job: EncodeJob;
}

export type WorkerResponse =
  | { id: number; ok: true; result: EncodeResult }
  | { id: number; ok: false; error: SerializedError };

export interface SerializedError {
  name: string;
  code: string;
  message: string;
  file?: string;
  reason?: AudioFileProblem;
  detail?: string;
}

/** Error classes do not survive postMessage; their code, file and reason do. */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof AudioFileError) {
    return { name: err.name, code: err.code, message: err.message, file: err.file, reason: err.reason, detail: err.detail };
  }
  if (err instanceof StationAgentError) return { name: err.name, code: err.code, message: err.message };
  const code = (err as { code?: unknown } | null)?.code;
  return {
    name: err instanceof Error ? err.name : 'Error',
    code: typeof code === 'string' ? code : 'ERR_UNKNOWN',
    message: err instanceof Error ? err.message : String(err),
  };
}

/** Rebuild the error on the caller's side: AudioFileError stays an AudioFileError. */
export function deserializeError(e: SerializedError): Error {
  if (e.code === 'ERR_AUDIO_INVALID' && e.file !== undefined && e.reason !== undefined && e.detail !== undefined) {
    return new AudioFileError(e.file, e.reason, e.detail);
  }
  if (e.code === 'ERR_FLAC_ENCODER') return new FlacEncoderError(e.message);
  // System errors (ENOENT, ENOSPC, ...) keep their code so callers can branch on it.
  return Object.assign(new Error(e.message), { code: e.code });
}
