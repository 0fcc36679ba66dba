import { mkdir, open, rename, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { identityProblem, queuedAudioError, type AudioIdentity, type QueuedAudio } from './audio-reference.js';
import { AudioFileError, FlacEncoderError } from './errors.js';
import { encodeStreamInfo, STREAMINFO_BYTES, STREAMINFO_OFFSET } from './flac-info.js';
import type { StreamInfo } from './flac-info.js';
import { flacBitsFor, readPcmChunks } from './pcm.js';
import { readWavInfoFrom } from './wav.js';
import { openRegularFileStat, type SyncReadableFile } from '../system/regular-file.js';

/**
 * The encoding itself, the same code for both libFLAC builds (libflacjs in the worker
 * thread or the calling thread, see flac-encoder.ts; flac-bindings' addon in the calling
 * thread). Plain data in, plain data out, so a job crosses the thread boundary as a
 * structured-clone message.
 */

export type FlacCompressionLevel = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

export interface EncodeJobOptions {
  /** 0 (fastest) to 8 (smallest). Default 5, libFLAC's and the `flac` program's default. */
  compressionLevel?: FlacCompressionLevel;
  /**
   * Encode the audio present in a WAV whose header was never finalised (a recorder that
   * crashed): by default such a file is refused with reason `incomplete`.
   */
  allowIncomplete?: boolean;
  /** WAV bytes read per step (rounded down to whole frames). Default 256 KiB (pcm.ts). */
  chunkBytes?: number;
  /**
   * Whether STREAMINFO carries the MD5 of the audio. Default true. false: skipped where the
   * encoder has the switch (libFLAC's addon as patches/ builds it: {@link NO_MD5}); libflacjs
   * and the `flac` program compute it still.
   */
  md5?: boolean;
  /** The spool WAV as its recording was queued: refused (AudioFileError `changed`) when its size or modification time differ. */
  queued?: QueuedAudio;
}

export interface EncodeJob extends EncodeJobOptions {
  src: string;
  /** The file `src` must be (a spool reference's analyzer's file, audio-reference.ts): checked on the descriptor read. */
  identity?: AudioIdentity | null;
  /** The FLAC file to write; absent: the FLAC is returned in memory (`EncodeResult.data`), nothing is written. */
  dest?: string;
}

export interface EncodeResult {
  sampleRate: number;
  channels: number;
  /** FLAC bits per sample: 8, 16 or 24 (32-bit and float input become 24). */
  bitsPerSample: number;
  /** Samples per channel. */
  totalSamples: number;
  durationSec: number;
  /** Size of the FLAC (file or memory). */
  bytes: number;
  /** MD5 of the audio, as stored in STREAMINFO (32 hex digits). */
  md5: string;
  /** What encoded it, e.g. `libflacjs release.wasm (worker thread)`. */
  engine: string;
  /** The FLAC itself, when the job had no `dest` (its own ArrayBuffer: it can be transferred between threads). */
  data?: Uint8Array;
}

export const DEFAULT_COMPRESSION_LEVEL: FlacCompressionLevel = 5;

/**
 * The block size (samples per channel per FLAC frame) every encoder is given, whatever the
 * level; the level's own choice is 1152 (levels 0 to 2) or 4096 (3 to 8). Two costs set it:
 * - libFLAC 1.4 sums a block's fixed-predictor errors in 32 bits only while
 *   `bitsPerSample + ilog2((blockSize - 4) * 17) < 32`, that is up to 3858 samples for
 *   16-bit audio; a 4096-sample block takes its 64-bit path (a 15 s, 48 kHz recording at
 *   level 5: 9.1 ms at 3456 against 11.4 ms at 4096, here);
 * - every frame is a call from libFLAC into JavaScript (the addon wraps each in a Buffer):
 *   1152 makes 628 of them per such recording, 3456 makes 212 (level 0: 6.9 against 7.8 ms).
 * The files come out within 0.4 % of the level's own. 3456 (3 x 1152) is in FLAC's
 * streamable subset (at most 4608 at 48 kHz and below), so any decoder reads it.
 */
export const FLAC_BLOCK_SIZE = 3456;

/**
 * STREAMINFO's MD5 when the encoder did not compute it: all zeros, which FLAC defines as
 * unknown (decoders then skip the check; `flac -t` warns and passes). The daemon's encodes
 * skip it (`md5: false`): the MD5 of a 15 s, 48 kHz recording is a third of libFLAC's CPU
 * at level 0 (2.2 of 6.6 ms here), and every FLAC frame still carries its own CRC-16, which
 * any decoder checks, so a FLAC damaged on its way or at rest is still found. What the MD5
 * alone finds is an encoder that got the audio wrong, which the encoders' tests check.
 */
export const NO_MD5 = '0'.repeat(32);

/** What one stream encoder is set up with. `src` names the WAV in error messages. */
export interface StreamEncoderParams {
  src: string;
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  compressionLevel: FlacCompressionLevel;
  /** Samples per channel per frame ({@link FLAC_BLOCK_SIZE}), set after the level, which would choose its own. */
  blockSize: number;
  /** Samples per channel, known in advance (libFLAC writes it into the first STREAMINFO). */
  totalSamples: number;
  /** false: leave STREAMINFO's MD5 unset where the encoder can ({@link EncodeJobOptions.md5}). */
  md5: boolean;
}

/**
 * One libFLAC stream encoder, whichever build runs it: libflacjs (WebAssembly, libflac.ts)
 * or flac-bindings (the system's libFLAC in-process, flac-native.ts). Neither gets seek
 * callbacks, so libFLAC cannot go back to finish the STREAMINFO it wrote first; it reports
 * the final block instead, which {@link encodeWavToFlac} writes over the first one.
 */
export interface FlacStreamEncoder {
  /** Encode whole interleaved frames. false: libFLAC failed (see {@link state}). */
  process(samples: Int32Array<ArrayBuffer>, frames: number): boolean;
  /** Flush the last frame and report the final STREAMINFO. false: libFLAC failed. */
  finish(): boolean;
  /** libFLAC's encoder state, for an error message. */
  state(): string;
  /** Free the encoder (finished or not). */
  release(): void;
}

/**
 * Creates a {@link FlacStreamEncoder} (throws FlacEncoderError when libFLAC refuses the
 * parameters). `onWrite` gets the FLAC's bytes as libFLAC produces them, from inside
 * `process` and `finish`; they may be a view of libFLAC's own memory, valid only during
 * the call (`onWrite` copies what it keeps). `onStreamInfo` gets the final STREAMINFO
 * during `finish`.
 */
export type FlacStreamEncoderFactory = (
  params: StreamEncoderParams,
  onWrite: (bytes: Uint8Array) => void,
  onStreamInfo: (info: StreamInfo) => void,
) => FlacStreamEncoder;

/**
 * WAV bytes encoded between two turns of the event loop. The audio is read with
 * synchronous reads (pcm.ts) and encoded in this thread by the addon, so nothing else
 * runs until the job awaits: about 1 MiB of WAV (7 ms of CPU here, a few tens on a Pi
 * Zero 2 W) is a pause nobody notices, while a 15 s recording (1.4 MB) then costs one or
 * two turns rather than one per chunk, and an hour-long WAV (345 MB) still lets timers,
 * sockets and a stop (`stopped`) in every MiB. A file job (`dest`) also waits for each
 * write, which lets the loop run too.
 */
const YIELD_EVERY_BYTES = 1024 * 1024;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Encode `job.src` (WAV) to FLAC with the encoders `createEncoder` makes, streaming: one
 * chunk of WAV in memory at a time. `stopped` is asked between chunks (a forced close).
 * With `job.dest`, the FLAC is written as libFLAC produces it to `dest + '.part'`, its
 * STREAMINFO rewritten with the final values, fsynced, then renamed, so `dest` is either
 * absent or a whole FLAC (the `.part` file is removed on failure). Without `dest`, the
 * FLAC is collected in memory and returned (`data`): nothing is written anywhere.
 */
export async function encodeWavToFlac(
  createEncoder: FlacStreamEncoderFactory,
  job: EncodeJob,
  engine: string,
  stopped: () => boolean = () => false,
): Promise<EncodeResult> {
  // One open for the header and the audio: a regular file only, never a FIFO or symlink.
  const { handle: fh, stats } = await openRegularFileStat(job.src);
  try {
    const changed = job.identity ? identityProblem(stats, job.identity) : null;
    if (changed) throw new AudioFileError(job.src, 'changed', `the analyzer's file is not the one queued (${changed}); not uploaded under its recording`);
    const rewritten = !job.identity && job.queued ? queuedAudioError(job.src, stats, job.queued) : null;
    if (rewritten) throw rewritten;
    return await encodeOpened(createEncoder, job, engine, stopped, fh, stats.size);
  } finally {
    await fh.close();
  }
}

async function encodeOpened(
  createEncoder: FlacStreamEncoderFactory,
  job: EncodeJob,
  engine: string,
  stopped: () => boolean,
  fh: SyncReadableFile,
  fileBytes: number,
): Promise<EncodeResult> {
  const info = await readWavInfoFrom(fh, job.src, fileBytes);
  if (!info.complete && !job.allowIncomplete) {
    throw new AudioFileError(
      job.src,
      'incomplete',
      `incomplete WAV: the data chunk declares ${info.declaredDataBytes} bytes, the file holds ${info.fileBytes - info.dataOffset} after its header`,
    );
  }
  const frames = info.dataBytes / info.blockAlign;
  if (frames === 0) throw new AudioFileError(job.src, 'no-samples', 'the data chunk holds no audio samples');
  const bitsPerSample = flacBitsFor(info);
  const level = job.compressionLevel ?? DEFAULT_COMPRESSION_LEVEL;

  const sink = job.dest === undefined ? memorySink(flacSizeEstimate(frames, info.channels, bitsPerSample)) : await fileSink(job.dest);
  let encoder: FlacStreamEncoder | undefined;
  let done = false;
  try {
    let streamInfo: StreamInfo | undefined;
    // libFLAC calls back synchronously from inside process/finish, a frame at a time; the
    // sink copies each frame as it comes, and a file sink writes them after each call returns.
    encoder = createEncoder(
      { src: job.src, sampleRate: info.sampleRate, channels: info.channels, bitsPerSample, compressionLevel: level, blockSize: FLAC_BLOCK_SIZE, totalSamples: frames, md5: job.md5 ?? true },
      sink.take,
      (meta) => {
        streamInfo = meta;
      },
    );

    let sinceTurn = 0;
    for (const samples of readPcmChunks(fh, job.src, info, { chunkBytes: job.chunkBytes })) {
      // Between chunks, so a stop never waits for a whole hour-long recording.
      if (stopped()) throw new FlacEncoderError(`the FLAC encoder was closed while encoding ${job.src}`);
      const chunkFrames = samples.length / info.channels;
      if (!encoder.process(samples, chunkFrames)) throw encoderStateError(encoder, job.src);
      await sink.flush();
      sinceTurn += chunkFrames * info.blockAlign;
      if (sinceTurn >= YIELD_EVERY_BYTES) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
    if (!encoder.finish()) throw encoderStateError(encoder, job.src);
    await sink.flush();

    if (streamInfo?.totalSamples !== frames) {
      throw new FlacEncoderError(
        `libFLAC reported ${streamInfo?.totalSamples ?? 'no'} samples for ${job.src}, expected ${frames}`,
      );
    }
    const { bytes, data } = await sink.finish(streamInfo);
    done = true;
    return {
      sampleRate: info.sampleRate,
      channels: info.channels,
      bitsPerSample,
      totalSamples: frames,
      durationSec: frames / info.sampleRate,
      bytes,
      md5: streamInfo.md5,
      engine,
      ...(data ? { data } : {}),
    };
  } finally {
    encoder?.release();
    if (!done) await sink.abort();
  }
}

/** Where libFLAC's output goes: a crash-safe file, or memory. */
interface FlacSink {
  /** libFLAC's bytes, valid only during the call: copied. A function, handed to the encoder as it is. */
  take: (bytes: Uint8Array) => void;
  /** After each process/finish: what was taken, written (a file) or nothing (memory). */
  flush(): Promise<void>;
  /** STREAMINFO rewritten with the final values; the file made durable, or the bytes returned. */
  finish(info: StreamInfo): Promise<{ bytes: number; data?: Uint8Array }>;
  abort(): Promise<void>;
}

async function fileSink(dest: string): Promise<FlacSink> {
  const part = `${dest}.part`;
  await mkdir(path.dirname(dest), { recursive: true });
  const out = await open(part, 'w+');
  // What one process call produced (a chunk's FLAC, smaller than the chunk), gathered
  // into one buffer, reused, so it goes to the file in one write.
  let pending = Buffer.allocUnsafeSlow(64 * 1024);
  let used = 0;
  let position = 0;
  let renamed = false;
  return {
    take(bytes) {
      if (used + bytes.byteLength > pending.length) {
        const grown = Buffer.allocUnsafeSlow(Math.max(pending.length * 2, used + bytes.byteLength));
        pending.copy(grown, 0, 0, used);
        pending = grown;
      }
      pending.set(bytes, used);
      used += bytes.byteLength;
    },
    async flush() {
      if (used === 0) return;
      const length = used;
      used = 0;
      const { bytesWritten } = await out.write(pending, 0, length, position);
      if (bytesWritten !== length) throw new Error(`short write to ${part}: ${bytesWritten} of ${length} bytes`);
      position += length;
    },
    async finish(info) {
      await rewriteStreamInfo(out, info, part);
      await out.sync();
      await out.close();
      await rename(part, dest);
      renamed = true;
      await syncDirectory(path.dirname(dest));
      return { bytes: position };
    },
    async abort() {
      if (renamed) return;
      await out.close().catch(() => undefined); // already closed when the rename failed
      await unlink(part).catch(() => undefined);
    },
  };
}

/** The memory sink's buffer kept between recordings (see {@link memorySink}). */
let spareStaging: Buffer | undefined;
/** The largest buffer kept: a 15 s recording's FLAC (about 0.8 MB at 48 kHz) and then some. */
const MAX_SPARE_STAGING_BYTES = 2 * 1024 * 1024;

/**
 * libFLAC's frames copied into one buffer kept between recordings, then, at the end, once
 * more into a buffer of the FLAC's exact size, which is returned. A recording then leaves
 * one dead buffer behind (its FLAC, once sent), the smallest possible: the collector frees
 * such buffers only when the JavaScript heap needs a collection, and with the encoder
 * allocating little else, every byte more per recording stays resident until then: a
 * buffer sized for the WAV and written in place, without this last copy (0.8 MB, tens of
 * microseconds), kept some 30 MB more resident over the bench's burst of 60 recordings.
 *
 * The staging buffer starts as the one kept (or the FLAC's {@link flacSizeEstimate}, at
 * most {@link MAX_SPARE_STAGING_BYTES}) and grows at most once in practice, straight to the
 * estimate; a buffer larger than that bound is not kept, and the one kept before stays.
 */
function memorySink(estimate: number): FlacSink {
  const spare = spareStaging;
  spareStaging = undefined;
  let staging = spare ?? Buffer.allocUnsafeSlow(Math.min(estimate, MAX_SPARE_STAGING_BYTES));
  let used = 0;
  const keep = () => {
    const kept = staging.length <= MAX_SPARE_STAGING_BYTES ? staging : spare;
    if (kept && (spareStaging === undefined || spareStaging.length < kept.length)) spareStaging = kept;
  };
  return {
    take(bytes) {
      if (used + bytes.byteLength > staging.length) {
        const grown = Buffer.allocUnsafeSlow(Math.max(estimate, staging.length * 2, used + bytes.byteLength));
        staging.copy(grown, 0, 0, used);
        staging = grown;
      }
      staging.set(bytes, used);
      used += bytes.byteLength;
    },
    flush: () => Promise.resolve(),
    finish(info) {
      // Its own ArrayBuffer (not Node's pool), so it can be transferred; every byte written.
      const data = new Uint8Array(Buffer.allocUnsafeSlow(used).buffer, 0, used);
      data.set(staging.subarray(0, used));
      keep();
      patchStreamInfo(data, info, 'the encoded FLAC');
      return Promise.resolve({ bytes: used, data });
    },
    abort() {
      keep();
      return Promise.resolve();
    },
  };
}

/**
 * What a FLAC of these samples takes at most in practice: the samples at the FLAC's bit
 * depth plus a frame's header, CRC and subframe headers per block (every encoder cuts
 * {@link FLAC_BLOCK_SIZE}-sample blocks), which is what libFLAC's verbatim frames, its
 * fallback for audio it cannot compress, come to.
 */
function flacSizeEstimate(frames: number, channels: number, bitsPerSample: number): number {
  const FRAME_OVERHEAD = 18; // frame header (at most 16 bytes) and CRC-16
  const blocks = Math.ceil(frames / FLAC_BLOCK_SIZE);
  return STREAMINFO_OFFSET + STREAMINFO_BYTES + Math.ceil((frames * channels * bitsPerSample) / 8) + blocks * (FRAME_OVERHEAD + 2 * channels);
}

/** Writes the final STREAMINFO over the first one of a FLAC held in memory (see {@link rewriteStreamInfo}). */
function patchStreamInfo(data: Uint8Array, info: StreamInfo, what: string): void {
  checkStreamInfoHead(Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, STREAMINFO_OFFSET)), what);
  data.set(encodeStreamInfo(info), STREAMINFO_OFFSET);
}

function checkStreamInfoHead(head: Buffer, what: string): void {
  if (head.length < STREAMINFO_OFFSET || head.toString('latin1', 0, 4) !== 'fLaC' || (head[4] & 0x7f) !== 0 || head.readUIntBE(5, 3) !== STREAMINFO_BYTES) {
    throw new FlacEncoderError(`${what}: libFLAC's output does not start with a STREAMINFO block`);
  }
}

function encoderStateError(encoder: FlacStreamEncoder, src: string): FlacEncoderError {
  return new FlacEncoderError(`libFLAC failed while encoding ${src} (encoder state ${encoder.state()})`);
}

/**
 * Without seek callbacks (see {@link FlacStreamEncoder}) libFLAC cannot go back to
 * fill in STREAMINFO: the header it wrote first lacks the MD5 and frame sizes, which
 * browsers need. Its metadata callback delivers the final block; write it over the
 * first one, after checking that the first block is the 34-byte STREAMINFO it should be.
 */
async function rewriteStreamInfo(out: FileHandle, info: StreamInfo, part: string): Promise<void> {
  const head = Buffer.alloc(STREAMINFO_OFFSET);
  await out.read(head, 0, STREAMINFO_OFFSET, 0);
  checkStreamInfoHead(head, part);
  await out.write(encodeStreamInfo(info), 0, STREAMINFO_BYTES, STREAMINFO_OFFSET);
}

/** Make the rename durable. Not every platform can open a directory; that is not an error. */
export async function syncDirectory(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // EISDIR/EPERM on some platforms: the rename itself has happened.
  } finally {
    await fh?.close();
  }
}
