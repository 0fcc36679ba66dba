import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type libFactory from 'libflacjs';
import { FlacEncoderError } from './errors.js';
import type { FlacStreamEncoderFactory } from './flac-encode-job.js';

/** The libflacjs API (libFLAC compiled with emscripten). */
export type LibFlac = libFactory.Flac;

export interface LoadedLibFlac {
  flac: LibFlac;
  /** `release.wasm` or `release.asmjs`. */
  variant: string;
}

const require = createRequire(import.meta.url);
/** A library that never signals ready is broken, not slow: it loads in milliseconds. */
const READY_TIMEOUT_MS = 30_000;

let loading: Promise<LoadedLibFlac> | undefined;

/**
 * Load libflacjs once per thread. The WebAssembly build encodes about twice as fast as
 * the asm.js one, so it is preferred; asm.js is the fallback when WebAssembly is
 * unavailable or the .wasm file is missing or invalid.
 */
export function loadLibFlac(): Promise<LoadedLibFlac> {
  loading ??= load().catch((err: unknown) => {
    loading = undefined; // let a later call try again
    throw err;
  });
  return loading;
}

async function load(): Promise<LoadedLibFlac> {
  /*
   * V8's optimising compiler (TurboFan) takes tens of MB for a second compiling a large
   * WebAssembly module (undici's llhttp took some 35 MB of VmHWM); Liftoff, the baseline
   * compiler, a few. The flag is the process's (NODE_OPTIONS refuses it), set before the
   * module is compiled; libflacjs, the encoder of last resort, then runs at about half
   * speed (616 against 1,102 x real time here). It was set by the API client while that
   * used undici; the client now uses node:http, so it is set here, where WebAssembly is compiled.
   */
  setFlagsFromString('--liftoff-only');
  const factory = require('libflacjs') as typeof libFactory;
  if (wasmUsable()) {
    try {
      return { flac: await whenReady(withoutFetch(() => factory('wasm'))), variant: 'release.wasm' };
    } catch {
      // fall through to asm.js
    }
  }
  return { flac: await whenReady(factory('')), variant: 'release.asmjs' };
}

function wasmUsable(): boolean {
  // The project's `lib` setting has no WebAssembly typings; only `validate` is needed.
  const wasm = (globalThis as { WebAssembly?: { validate(bytes: Uint8Array): boolean } }).WebAssembly;
  if (wasm === undefined) return false;
  try {
    const wasmFile = require.resolve('libflacjs/dist/libflac.wasm.wasm');
    return existsSync(wasmFile) && wasm.validate(readFileSync(wasmFile));
  } catch {
    return false;
  }
}

/**
 * libflacjs' emscripten glue (1.39) fetches its .wasm with `fetch()` whenever a global
 * `fetch` exists, which Node 18+ has, and `fetch` cannot read a file path, so loading
 * fails. Hiding `fetch` while the module evaluates makes it read the file with `fs`
 * instead. The check happens synchronously during `require`, so no other code runs
 * while `fetch` is hidden.
 */
function withoutFetch<T>(load: () => T): T {
  const g = globalThis as { fetch?: unknown };
  const saved = g.fetch;
  g.fetch = undefined;
  try {
    return load();
  } finally {
    g.fetch = saved;
  }
}

function whenReady(flac: LibFlac): Promise<LibFlac> {
  if (flac.isReady()) return Promise.resolve(flac);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new FlacEncoderError(`libflacjs did not become ready within ${READY_TIMEOUT_MS / 1000} s`));
    }, READY_TIMEOUT_MS);
    timer.unref();
    flac.on('ready', () => {
      clearTimeout(timer);
      resolve(flac);
    });
  });
}

/** libflacjs' stream encoder behind the interface encodeWavToFlac uses (flac-encode-job.ts). */
export function libFlacJsEncoder(flac: LibFlac): FlacStreamEncoderFactory {
  return (params, onWrite, onStreamInfo) => {
    const { src, sampleRate, channels, bitsPerSample, compressionLevel, blockSize, totalSamples } = params;
    // The block size is set after the level (libflacjs' order), so the level does not replace it.
    const encoder = flac.create_libflac_encoder(sampleRate, channels, bitsPerSample, compressionLevel, totalSamples, false, blockSize);
    if (encoder === 0) throw new FlacEncoderError(`libFLAC could not create an encoder for ${src}`);
    const status = flac.init_encoder_stream(encoder, onWrite, (meta) => {
      if (!meta) return;
      onStreamInfo({
        sampleRate: meta.sampleRate,
        channels: meta.channels,
        bitsPerSample: meta.bitsPerSample,
        totalSamples: meta.total_samples,
        minBlockSize: meta.min_blocksize,
        maxBlockSize: meta.max_blocksize,
        minFrameSize: meta.min_framesize,
        maxFrameSize: meta.max_framesize,
        md5: meta.md5sum,
      });
    });
    if (status !== 0) {
      flac.FLAC__stream_encoder_delete(encoder);
      throw new FlacEncoderError(`libFLAC refused to start encoding ${src} (init status ${status})`);
    }
    return {
      process: (samples, frames) => flac.FLAC__stream_encoder_process_interleaved(encoder, samples, frames),
      finish: () => flac.FLAC__stream_encoder_finish(encoder),
      state: () => String(flac.FLAC__stream_encoder_get_state(encoder)),
      release: () => flac.FLAC__stream_encoder_delete(encoder),
    };
  };
}
