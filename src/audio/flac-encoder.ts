import { existsSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { queuedAudioError, resolveSpoolAudio } from './audio-reference.js';
import { FlacEncoderError } from './errors.js';
import type { EncodeJobOptions, EncodeResult, FlacCompressionLevel } from './flac-encode-job.js';
import { nativeEngine } from './flac-engines.js';
import type { EncodeEngine } from './flac-engines.js';
import { loadNativeFlac } from './flac-native.js';
import type { FlacEngineChoice } from '../config/schema.js';

export type { EncodeJobOptions, EncodeResult, FlacCompressionLevel } from './flac-encode-job.js';
export type { FlacEngineChoice } from '../config/schema.js';

/**
 * WAV -> FLAC for the spool. One encoder per process: it runs jobs one at a time, in the
 * order they were asked for, with the engine chosen on the first job (`engine` below):
 * libFLAC in this thread, the `flac` program, or libflacjs in one long-lived worker thread.
 *
 * Where libflacjs runs (`thread`):
 * - The build (tsc) compiles this folder to `dist/audio/`, next to which
 *   `flac-worker.js` then exists; the encoder starts it with
 *   `new Worker(new URL('./flac-worker.js', import.meta.url))`.
 * - Under vitest the modules are the `.ts` sources, there is no `flac-worker.js`
 *   beside them, and a Worker cannot run the sources (Node's type stripping does not map
 *   their `./x.js` imports to `./x.ts`).
 *   `auto` then encodes in the calling thread with the very same code
 *   (flac-encode-job.ts). The compiled worker path is tested separately by building
 *   this folder in the test (test/audio/flac-encoder-dist.test.ts).
 */
export interface FlacEncoderOptions {
  /** Default for every job: 0 (fastest) to 8 (smallest). Default 5. */
  compressionLevel?: FlacCompressionLevel;
  /** Default for every job: whether STREAMINFO carries the audio's MD5 ({@link EncodeJobOptions.md5}). Default true. */
  md5?: boolean;
  /**
   * Which encoder (the config's `upload.flacEncoder`, whose default is `auto`):
   * - `wasm` (this function's default, so a library caller gets the same encoder
   *   everywhere): libflacjs.
   * - `auto`: the system's libFLAC in this process (flac-bindings' addon, flac-native.ts)
   *   when it loads; else the `flac` program when it is on PATH (for complete 8/16/24-bit
   *   PCM; anything else still goes to libflacjs); else libflacjs.
   * - `native`: native libFLAC only: the addon, else the `flac` program; with neither,
   *   every job fails with FlacEncoderError (and the encode step retries it later).
   * - `program`: the `flac` program only (float, 32-bit and unfinished WAVs still go to
   *   libflacjs); without it every job fails likewise.
   */
  engine?: FlacEngineChoice;
  /** `auto` (default): the worker thread when compiled, else in-process. See above. */
  thread?: 'auto' | 'worker' | 'in-process';
  /**
   * The addon file that provides libFLAC in-process with `auto` and `native`: default
   * flac-bindings' (flac-native.ts, `flacAddonFile`); `false`: none (the `flac` program,
   * then libflacjs).
   */
  flacAddon?: string | false;
  /** The `flac` program to look for with `auto` and `native`. Default `flac` (on PATH). */
  flacProgram?: string;
  /**
   * Where the `flac` program writes a FLAC that {@link FlacEncoder.encodeToMemory} asks for
   * (it must seek back to finish STREAMINFO, which a pipe does not allow): a RAM file
   * system. Default: `/dev/shm` when it is a tmpfs; `false`: none (libflacjs encodes those jobs).
   */
  scratchDir?: string | false;
}

/** A FLAC encoded into memory: the bytes and what they hold. */
export type EncodedFlac = Omit<EncodeResult, 'data'> & { data: Buffer };

export interface FlacEncoder {
  /**
   * Encode `srcWav` to `destFlac` (written as `destFlac + '.part'`, fsynced, renamed).
   * Rejects with AudioFileError (code ERR_AUDIO_INVALID, naming the file) for input that
   * is not an encodable WAV, FlacEncoderError (ERR_FLAC_ENCODER) when the encoder
   * itself fails or was closed, and the system error for I/O failures (ENOENT, ENOSPC).
   */
  encode(srcWav: string, destFlac: string, opts?: EncodeJobOptions): Promise<EncodeResult>;
  /**
   * Encode `srcWav` into memory: the FLAC is returned, nothing is written to a disk. The
   * caller bounds what it asks for (the whole FLAC is held). Same errors as {@link encode}.
   */
  encodeToMemory(srcWav: string, opts?: EncodeJobOptions): Promise<EncodedFlac>;
  /**
   * Stop accepting jobs, reject the queued ones, let the running one finish (or, with
   * `force`, stop it and remove its `.part`), then end the worker thread if one runs.
   */
  close(opts?: { force?: boolean }): Promise<void>;
}

/** The compiled worker, next to the compiled version of this module. */
const FLAC_WORKER_URL = new URL('./flac-worker.js', import.meta.url);

interface Queued {
  run: () => Promise<EncodeResult>;
  resolve: (result: EncodeResult) => void;
  reject: (err: unknown) => void;
}

function levelError(level: number | undefined): RangeError | undefined {
  if (level === undefined || (Number.isInteger(level) && level >= 0 && level <= 8)) return undefined;
  return new RangeError(`FLAC compression level must be an integer from 0 to 8, got ${level}`);
}

export function createFlacEncoder(options: FlacEncoderOptions = {}): FlacEncoder {
  const invalid = levelError(options.compressionLevel);
  if (invalid) throw invalid;
  let engine: Promise<EncodeEngine> | undefined;
  const queue: Queued[] = [];
  let running: Promise<void> | undefined;
  let closed = false;

  // A failed choice (`native` without the program) is not kept: the next job looks again,
  // so installing `flac` fixes a running daemon.
  const getEngine = () =>
    (engine ??= chooseEngine(options).catch((err: unknown) => {
      engine = undefined;
      throw err;
    }));

  const pump = () => {
    if (running || queue.length === 0) return;
    const item = queue.shift()!;
    running = item
      .run()
      .then(item.resolve, item.reject)
      .finally(() => {
        running = undefined;
        pump();
      });
  };

  const submit = (srcWav: string, destFlac: string | undefined, opts: EncodeJobOptions): Promise<EncodeResult> => {
    if (closed) return Promise.reject(new FlacEncoderError('the FLAC encoder is closed'));
    const invalidLevel = levelError(opts.compressionLevel);
    if (invalidLevel) return Promise.reject(invalidLevel);
    const job = { compressionLevel: options.compressionLevel, md5: options.md5, ...opts, src: srcWav, ...(destFlac === undefined ? {} : { dest: destFlac }) };
    return new Promise<EncodeResult>((resolve, reject) => {
      queue.push({ run: async () => (await getEngine()).run(await checkedJob(job)), resolve, reject });
      pump();
    });
  };

  return {
    encode(srcWav, destFlac, opts = {}) {
      return submit(srcWav, destFlac, opts);
    },
    async encodeToMemory(srcWav, opts = {}) {
      const result = await submit(srcWav, undefined, opts);
      if (!result.data) throw new FlacEncoderError(`the encoder returned no FLAC for ${srcWav}`);
      const { buffer, byteOffset, byteLength } = result.data;
      return { ...result, data: Buffer.from(buffer, byteOffset, byteLength) };
    },
    async close({ force = false } = {}) {
      closed = true;
      for (const item of queue.splice(0)) item.reject(new FlacEncoderError('the FLAC encoder was closed before the job started'));
      const current = running;
      const started = await engine?.catch(() => undefined);
      if (!started) return;
      if (force) await started.close(true);
      await current;
      await started.close(false);
    },
  };
}

/**
 * The job as its turn comes: a spool reference resolved to the analyzer's file (audio-reference.ts),
 * and a spool WAV checked against how it was queued. The libFLAC engines check both again on the
 * descriptor they read; the `flac` program opens the file itself, so this check is what it has.
 */
async function checkedJob<T extends { src: string; queued?: EncodeJobOptions['queued'] }>(job: T): Promise<T & { identity: Awaited<ReturnType<typeof resolveSpoolAudio>>['identity'] }> {
  const resolved = await resolveSpoolAudio(job.src);
  if (!resolved.identity && job.queued) {
    const rewritten = queuedAudioError(job.src, await lstat(job.src).catch(() => null), job.queued);
    if (rewritten) throw rewritten;
  }
  return { ...job, src: resolved.path, identity: resolved.identity };
}

async function chooseEngine(options: FlacEncoderOptions): Promise<EncodeEngine> {
  const choice = options.engine ?? 'wasm';
  // The addon is loaded here, on the first job: a day without soundscapes never maps it.
  let addonError: string | undefined;
  if ((choice === 'auto' || choice === 'native') && options.flacAddon !== false) {
    try {
      return nativeEngine(await loadNativeFlac(options.flacAddon));
    } catch (err) {
      addonError = (err as Error).message;
    }
  }
  // The fallbacks are loaded only here, where the addon is not there or not chosen.
  const { inProcessEngine, workerEngine } = await import('./libflac-engines.js');
  const thread = options.thread ?? 'auto';
  let libflac: EncodeEngine;
  if (thread === 'in-process') {
    libflac = inProcessEngine();
  } else if (existsSync(fileURLToPath(FLAC_WORKER_URL))) {
    libflac = workerEngine(FLAC_WORKER_URL);
  } else if (thread === 'worker') {
    throw new FlacEncoderError(
      `the FLAC worker ${fileURLToPath(FLAC_WORKER_URL)} does not exist (run the build: npm run build)`,
    );
  } else {
    libflac = inProcessEngine();
  }
  if (choice === 'wasm') return libflac;
  const program = options.flacProgram ?? 'flac';
  const { findFlacProgram, findScratchDir, flacCliEngine } = await import('./flac-cli.js');
  const version = await findFlacProgram(program);
  if (version !== undefined) {
    const scratch = options.scratchDir === false ? undefined : await findScratchDir(options.scratchDir);
    return flacCliEngine(version, libflac, program, scratch);
  }
  if (choice === 'native' || choice === 'program') {
    await libflac.close(false);
    const missing = choice === 'native'
      ? `neither libFLAC's addon (${addonError ?? 'turned off'}) nor the ${program} program (not on PATH) is there`
      : `the ${program} program was not found on PATH`;
    throw new FlacEncoderError(`upload.flacEncoder is "${choice}" but ${missing} (install it: apt-get install flac; or set upload.flacEncoder to "auto")`);
  }
  return libflac;
}
