import { mkdir, open, rename, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AudioFileError, FlacEncoderError } from './errors.js';
import { encodeStreamInfo, STREAMINFO_BYTES, STREAMINFO_OFFSET } from './flac-info.js';
import type { StreamInfo } from './flac-info.js';
import type { LibFlac } from './libflac.js';
import { flacBitsFor, readPcmChunks } from './pcm.js';
import { readWavInfo } from './wav.js';

/**
 * The encoding itself, the same code whether it runs in the worker thread or in the
 * calling thread (see flac-encoder.ts for why both exist). Plain data in, plain data
 * out, so a job crosses the thread boundary as a structured-clone message.
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
  /** WAV bytes read per step (rounded down to whole frames). Default 64 KiB. */
  chunkBytes?: number;
}

export interface EncodeJob extends EncodeJobOptions {
  src: string;
  dest: string;
}

export interface EncodeResult {
  sampleRate: number;
  channels: number;
  /** FLAC bits per sample: 8, 16 or 24 (32-bit and float input become 24). */
  bitsPerSample: number;
  /** Samples per channel. */
  totalSamples: number;
  durationSec: number;
  /** Size of the FLAC file. */
  bytes: number;
  /** MD5 of the audio, as stored in STREAMINFO (32 hex digits). */
  md5: string;
  /** What encoded it, e.g. `libflacjs release.wasm (worker thread)`. */
  engine: string;
}

export const DEFAULT_COMPRESSION_LEVEL: FlacCompressionLevel = 5;

/**
 * Encode `job.src` (WAV) to `job.dest` (FLAC), streaming: one chunk of WAV in memory,
 * the FLAC written as libFLAC produces it. Writes `dest + '.part'`, rewrites its
 * STREAMINFO with the final values, fsyncs, then renames, so `dest` is either absent or
 * a whole FLAC. The `.part` file is removed on failure.
 */
export async function encodeWavToFlac(flac: LibFlac, job: EncodeJob, engine: string): Promise<EncodeResult> {
  const info = await readWavInfo(job.src);
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

  const part = `${job.dest}.part`;
  await mkdir(path.dirname(job.dest), { recursive: true });
  const out = await open(part, 'w+');
  const encoder = flac.create_libflac_encoder(info.sampleRate, info.channels, bitsPerSample, level, frames, false, 0);
  let renamed = false;
  try {
    if (encoder === 0) throw new FlacEncoderError(`libFLAC could not create an encoder for ${job.src}`);

    // libFLAC calls back synchronously from inside process/finish; the bytes are written
    // after each call returns, so at most one chunk's worth of FLAC waits in memory.
    let pending: Uint8Array[] = [];
    let position = 0;
    let streamInfo: StreamInfo | undefined;
    const flush = async () => {
      if (pending.length === 0) return;
      const buffers = pending;
      pending = [];
      const { bytesWritten } = await out.writev(buffers, position);
      position += bytesWritten;
    };
    const status = flac.init_encoder_stream(
      encoder,
      (data) => {
        pending.push(data);
      },
      (meta) => {
        if (meta) {
          streamInfo = {
            sampleRate: meta.sampleRate,
            channels: meta.channels,
            bitsPerSample: meta.bitsPerSample,
            totalSamples: meta.total_samples,
            minBlockSize: meta.min_blocksize,
            maxBlockSize: meta.max_blocksize,
            minFrameSize: meta.min_framesize,
            maxFrameSize: meta.max_framesize,
            md5: meta.md5sum,
          };
        }
      },
    );
    if (status !== 0) throw new FlacEncoderError(`libFLAC refused to start encoding ${job.src} (init status ${status})`);

    for await (const samples of readPcmChunks(job.src, info, { chunkBytes: job.chunkBytes })) {
      if (!flac.FLAC__stream_encoder_process_interleaved(encoder, samples, samples.length / info.channels)) {
        throw encoderStateError(flac, encoder, job.src);
      }
      await flush();
    }
    if (!flac.FLAC__stream_encoder_finish(encoder)) throw encoderStateError(flac, encoder, job.src);
    await flush();

    if (streamInfo?.totalSamples !== frames) {
      throw new FlacEncoderError(
        `libFLAC reported ${streamInfo?.totalSamples ?? 'no'} samples for ${job.src}, expected ${frames}`,
      );
    }
    await rewriteStreamInfo(out, streamInfo, part);
    await out.sync();
    await out.close();
    await rename(part, job.dest);
    renamed = true;
    await syncDirectory(path.dirname(job.dest));
    return {
      sampleRate: info.sampleRate,
      channels: info.channels,
      bitsPerSample,
      totalSamples: frames,
      durationSec: frames / info.sampleRate,
      bytes: position,
      md5: streamInfo.md5,
      engine,
    };
  } finally {
    if (encoder !== 0) flac.FLAC__stream_encoder_delete(encoder);
    if (!renamed) {
      await out.close().catch(() => undefined); // already closed when the rename failed
      await unlink(part).catch(() => undefined);
    }
  }
}

function encoderStateError(flac: LibFlac, encoder: number, src: string): FlacEncoderError {
  return new FlacEncoderError(
    `libFLAC failed while encoding ${src} (encoder state ${flac.FLAC__stream_encoder_get_state(encoder)})`,
  );
}

/**
 * Without seek callbacks (libflacjs' stream encoder has none) libFLAC cannot go back to
 * fill in STREAMINFO: the header it wrote first lacks the MD5 and frame sizes, which
 * browsers need. Its metadata callback delivers the final block; write it over the
 * first one, after checking that the first block is the 34-byte STREAMINFO it should be.
 */
async function rewriteStreamInfo(out: FileHandle, info: StreamInfo, part: string): Promise<void> {
  const head = Buffer.alloc(STREAMINFO_OFFSET);
  await out.read(head, 0, STREAMINFO_OFFSET, 0);
  if (head.toString('latin1', 0, 4) !== 'fLaC' || (head[4] & 0x7f) !== 0 || head.readUIntBE(5, 3) !== STREAMINFO_BYTES) {
    throw new FlacEncoderError(`${part}: libFLAC's output does not start with a STREAMINFO block`);
  }
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
