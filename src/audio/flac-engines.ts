import { encodeWavToFlac } from './flac-encode-job.js';
import type { EncodeJob, EncodeResult } from './flac-encode-job.js';
import type { NativeFlac } from './flac-native.js';

/** Something that runs one encode job at a time (the queue in flac-encoder.ts ensures it). */
export interface EncodeEngine {
  readonly name: string;
  run(job: EncodeJob): Promise<EncodeResult>;
  /** Release the engine. `force`: stop a running job now (its `.part` file is removed). */
  close(force: boolean): Promise<void>;
}

/**
 * The system's libFLAC in this thread (flac-bindings, flac-native.ts): the same code as
 * libflacjs (flac-encode-job.ts), so it takes every WAV the RIFF reader does (float and
 * 32-bit converted as pcm.ts documents, odd chunk layouts, unfinished files when asked).
 * Reading and encoding block the event loop for about a MiB of WAV at a time (a few
 * tens of milliseconds on a Pi, see flac-encode-job.ts). close(true) stops a running job
 * between two chunks.
 */
export function nativeEngine(native: NativeFlac): EncodeEngine {
  let closing = false;
  const name = `libFLAC ${native.version} (flac-bindings, in-process)`;
  return {
    name,
    run: (job) => encodeWavToFlac(native.createEncoder, job, name, () => closing),
    close(force) {
      if (force) closing = true;
      return Promise.resolve();
    },
  };
}
