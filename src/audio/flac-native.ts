import { createRequire } from 'node:module';
import { packageAddonFile } from '../system/package-dir.js';
import { FlacEncoderError } from './errors.js';
import type { FlacStreamEncoderFactory } from './flac-encode-job.js';

/**
 * The system's libFLAC in this process, through flac-bindings (an N-API addon, built at
 * `npm ci` against Debian's libflac-dev, linked to libFLAC.so.12; the .deb carries it
 * built for its architecture). Same encoder as the `flac` program, without a process per
 * recording, a scratch file or a worker thread. An optional dependency: where it is not
 * built (no libflac-dev, no compiler, `npm ci` with CI set, a station installed from a
 * clone without the dev dependencies) loading fails and the encoder falls back to the
 * `flac` program, then libflacjs (flac-encoder.ts).
 *
 * Only the few calls we make are typed here, so the build does not depend on the package
 * being installed.
 */

/**
 * The file loaded by default: flac-bindings' addon as its install builds it (build/Release/;
 * the .deb carries it so), required as it is: the bare API, not the package's stream classes.
 * Not through the package's `flac-bindings/api` either, an ES module whose import, at the
 * first recording, brought up Node's ES loader in the bundle's CommonJS process (after the
 * daemon's V8 flag: compiled from source, system/v8-flags.ts) and ran the `bindings` package's
 * search for the file (a stack trace, then a dozen requires that miss).
 */
function flacAddonFile(): string {
  return packageAddonFile('flac-bindings', 'flac-bindings.node');
}

interface AddonStreamInfo {
  /** 0: STREAMINFO. */
  type: number;
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  totalSamples: number | bigint;
  minBlocksize: number;
  maxBlocksize: number;
  minFramesize: number;
  maxFramesize: number;
  md5sum: Buffer;
}

interface AddonEncoder {
  /** One buffer of 32-bit samples per channel. */
  process(buffers: Buffer[], samples: number): boolean;
  processInterleaved(buffer: Buffer, samples: number): boolean;
  /** The builder again when it worked, null when not. Afterwards the encoder must not be touched (it is freed). */
  finish(): unknown;
  getResolvedStateString(): string;
}

interface AddonBuilder {
  setChannels(value: number): AddonBuilder;
  setBitsPerSample(value: number): AddonBuilder;
  setSampleRate(value: number): AddonBuilder;
  setCompressionLevel(value: number): AddonBuilder;
  setBlocksize(value: number): AddonBuilder;
  setTotalSamplesEstimate(value: number): AddonBuilder;
  /** Only in the addon patches/ builds (libFLAC's FLAC__stream_encoder_set_do_md5); absent in flac-bindings' own. */
  setDoMd5?(value: boolean): AddonBuilder;
  buildWithStream(
    write: (buffer: Buffer) => number,
    seek: null,
    tell: null,
    metadata: (meta: AddonStreamInfo) => void,
  ): AddonEncoder;
}

interface AddonApi {
  EncoderBuilder: { new (): AddonBuilder; prototype: AddonBuilder };
  format: { VERSION_STRING: string };
}

export interface NativeFlac {
  createEncoder: FlacStreamEncoderFactory;
  /** libFLAC's version, e.g. `1.4.2`. */
  version: string;
  /** Whether the addon can leave STREAMINFO's MD5 unset (built from patches/' sources). */
  md5Switch: boolean;
}

/** FLAC__STREAM_ENCODER_WRITE_STATUS_OK */
const WRITE_OK = 0;

/**
 * Load the addon (`file`: default {@link flacAddonFile}). Rejects with FlacEncoderError
 * saying why (not installed, not built, libFLAC.so missing).
 */
export function loadNativeFlac(file?: string): Promise<NativeFlac> {
  let api: AddonApi;
  try {
    api = createRequire(import.meta.url)(file ?? flacAddonFile()) as AddonApi;
    if (typeof api.EncoderBuilder !== 'function') throw new Error('it has no EncoderBuilder');
  } catch (err) {
    return Promise.reject(
      new FlacEncoderError(`libFLAC's addon (${file ?? 'flac-bindings'}) could not be loaded: ${(err as Error).message.split('\n')[0]}`, { cause: err }),
    );
  }
  return Promise.resolve({ createEncoder: addonEncoder(api), version: api.format.VERSION_STRING, md5Switch: typeof api.EncoderBuilder.prototype.setDoMd5 === 'function' });
}

function addonEncoder(api: AddonApi): FlacStreamEncoderFactory {
  /**
   * libFLAC's encoder, finished and ready again: a successful finish() hands it back to its
   * builder, which takes new settings and builds anew. Made once and reused, because each
   * builder allocates a FLAC__StreamEncoder in native memory that only the garbage collector's
   * finaliser frees, and V8 sees a small object: with the heap barely growing, no full
   * collection came, and one encoder per recording grew the daemon's RssAnon by some 18 MB
   * per 1,000 recordings (issue 35's soak: 47.7 to 138.8 MB over 5,000, `npm run bench --
   * --only soak`). Encodes run one at a time (flac-encoder.ts).
   */
  let idle: AddonBuilder | null = null;
  return (params, onWrite, onStreamInfo) => {
    const { src, sampleRate, channels, bitsPerSample, compressionLevel, blockSize, totalSamples, md5 } = params;
    let encoder: AddonEncoder;
    // What libFLAC's callbacks reach, cut off when the encode ends (see encoderCallbacks).
    const to: CallbackTargets = { onWrite, onStreamInfo };
    const reused = idle;
    idle = null;
    try {
      const builder = (reused ?? new api.EncoderBuilder())
        .setChannels(channels)
        .setBitsPerSample(bitsPerSample)
        .setSampleRate(sampleRate)
        .setCompressionLevel(compressionLevel)
        .setBlocksize(blockSize)
        .setTotalSamplesEstimate(totalSamples);
      // An addon without patches/' switch computes the MD5 whatever is asked. Set either way:
      // libFLAC's finish() resets every setting, but a builder is not reused after a failure.
      builder.setDoMd5?.(md5);
      const callbacks = encoderCallbacks(to);
      encoder = builder.buildWithStream(callbacks.write, null, null, callbacks.metadata);
    } catch (err) {
      throw new FlacEncoderError(`libFLAC refused to start encoding ${src}: ${(err as Error).message}`, { cause: err });
    }
    // After a successful finish the addon frees its encoder: calling it then crashes the process.
    let finished = false;
    return {
      process: (samples, frames) => {
        const bytes = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
        // Mono (the analyzer's recordings): libFLAC's process() copies the channel with one
        // memcpy, where process_interleaved() checks and copies sample by sample: some 5 %
        // of a level-0 encode (4.2 against 4.4 ms for the bench's 15 s, 48 kHz WAV).
        return channels === 1 ? encoder.process([bytes], frames) : encoder.processInterleaved(bytes, frames);
      },
      finish: () => {
        const builder = encoder.finish();
        finished = builder !== null;
        to.onWrite = to.onStreamInfo = null;
        // Only a builder whose encode ended well holds its encoder again, ready to be reused.
        if (builder !== null) idle = builder as AddonBuilder;
        return finished;
      },
      state: () => (finished ? 'finished' : encoder.getResolvedStateString()),
      release: () => {
        // An unfinished encoder is finished here (its output is dropped), not left to the
        // garbage collector, which would run libFLAC's callbacks at an unknown time.
        to.onWrite = to.onStreamInfo = null;
        if (finished) return;
        finished = true;
        try {
          encoder.finish();
        } catch {
          // failed already: nothing more to release
        }
      },
    };
  };
}

interface CallbackTargets {
  onWrite: ((bytes: Uint8Array) => void) | null;
  onStreamInfo: Parameters<FlacStreamEncoderFactory>[2] | null;
}

/**
 * libFLAC's write and metadata callbacks for one encode, made in a scope of their own. The
 * addon holds them by strong references (napi references, roots for the collector) from the
 * encoder it builds, until that encoder is collected; callbacks made beside the encoder, in
 * the scope whose closures use it, shared that scope's context, through which they reached
 * the encoder: a cycle through a root, so no encoder, no callback and no job's sink was ever
 * collected. Issue 35's soak of 20,000 recordings (`npm run bench -- --only soak`) showed it:
 * the V8 heap grew from 14.6 to 30.7 MB and VmRSS to 120 MB; two heap snapshots 1,600
 * recordings apart differed by 1,604 StreamEncoders, each with its callbacks' closures. These
 * reach only `to`, which the encoder clears when the encode ends: a callback after that does
 * nothing.
 */
function encoderCallbacks(to: CallbackTargets): { write: (buffer: Buffer) => number; metadata: (meta: AddonStreamInfo) => void } {
  return {
    // A frame at a time (a few KB), a view of libFLAC's memory valid only inside the
    // callback: handed straight on (the job's sink copies it), not gathered here first.
    write: (buffer) => {
      to.onWrite?.(buffer);
      return WRITE_OK;
    },
    metadata: (meta) => {
      if (meta.type !== 0) return;
      to.onStreamInfo?.({
        sampleRate: meta.sampleRate,
        channels: meta.channels,
        bitsPerSample: meta.bitsPerSample,
        totalSamples: Number(meta.totalSamples),
        minBlockSize: meta.minBlocksize,
        maxBlockSize: meta.maxBlocksize,
        minFrameSize: meta.minFramesize,
        maxFrameSize: meta.maxFramesize,
        md5: meta.md5sum.toString('hex'),
      });
    },
  };
}
