import { AudioFileError } from './errors.js';
import { WAVE_FORMAT_IEEE_FLOAT } from './wav-format.js';
import type { WavFormat } from './wav-format.js';
import type { WavInfo } from './wav.js';
import type { SyncReadableFile } from '../system/regular-file.js';

/**
 * Read size for the encoder: small enough for a Pi Zero (the chunk and its samples are
 * the encoder's only buffers, kept between recordings), large enough that a 15 s
 * recording (1.4 MB) takes six reads and six calls into libFLAC.
 */
const DEFAULT_CHUNK_BYTES = 256 * 1024;

/**
 * The FLAC bit depth for a WAV sample format. libFLAC (1.3) encodes 4 to 24 bits per
 * sample and has no float, so:
 * - 8-bit (unsigned in WAV) -> 8-bit, 16 -> 16, 24 -> 24: lossless.
 * - 32-bit integer -> 24-bit by dropping the 8 least significant bits: lossless when the
 *   file carries at most 24 significant bits (recorders' 32-bit containers usually do:
 *   see `validBitsPerSample`), else the lowest bits (below -144 dBFS) are lost.
 * - 32/64-bit float -> 24-bit: `round(x * 2^23)`, clipped to [-2^23, 2^23 - 1]
 *   (values beyond full scale clip; NaN becomes 0).
 */
export function flacBitsFor(format: Pick<WavFormat, 'formatTag' | 'bitsPerSample'>): 8 | 16 | 24 {
  if (format.formatTag === WAVE_FORMAT_IEEE_FLOAT) return 24;
  if (format.bitsPerSample === 8) return 8;
  if (format.bitsPerSample === 16) return 16;
  return 24;
}

const FULL_SCALE_24 = 8_388_608;
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function floatTo24(x: number): number {
  if (Number.isNaN(x)) return 0;
  const v = Math.round(x * FULL_SCALE_24);
  return v > FULL_SCALE_24 - 1 ? FULL_SCALE_24 - 1 : v < -FULL_SCALE_24 ? -FULL_SCALE_24 : v;
}

/**
 * Convert little-endian WAV sample bytes (whole frames) to interleaved integers at the
 * bit depth `flacBitsFor(format)` chooses. `into`: an array to write them into (at least
 * as long as the samples), returned as a view of the length filled.
 */
export function decodeSamples(
  bytes: Uint8Array,
  format: Pick<WavFormat, 'formatTag' | 'bitsPerSample'>,
  into?: Int32Array<ArrayBuffer>,
): Int32Array<ArrayBuffer> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = format.bitsPerSample / 8;
  const count = Math.floor(bytes.byteLength / width);
  const out = into ? into.subarray(0, count) : new Int32Array(count);
  if (format.formatTag === WAVE_FORMAT_IEEE_FLOAT) {
    if (width === 4) for (let i = 0; i < count; i++) out[i] = floatTo24(view.getFloat32(i * 4, true));
    else for (let i = 0; i < count; i++) out[i] = floatTo24(view.getFloat64(i * 8, true));
    return out;
  }
  switch (width) {
    case 1:
      for (let i = 0; i < count; i++) out[i] = bytes[i] - 128;
      break;
    case 2:
      // The common case (16-bit recorders): a typed-array copy widens the samples in one
      // native step where the host is little-endian, like the WAV, and the bytes aligned.
      if (LITTLE_ENDIAN_HOST && bytes.byteOffset % 2 === 0) out.set(new Int16Array(bytes.buffer, bytes.byteOffset, count));
      else for (let i = 0; i < count; i++) out[i] = view.getInt16(i * 2, true);
      break;
    case 3:
      for (let i = 0, o = 0; i < count; i++, o += 3) {
        out[i] = bytes[o] | (bytes[o + 1] << 8) | ((bytes[o + 2] << 24) >> 8);
      }
      break;
    case 4:
      for (let i = 0; i < count; i++) out[i] = view.getInt32(i * 4, true) >> 8;
      break;
    default:
      throw new Error(`unsupported sample width ${width}`);
  }
  return out;
}

/** The read buffer and sample array kept between recordings (see {@link readPcmChunks}). */
let spareBytes: Buffer | undefined;
let spareSamples: Int32Array<ArrayBuffer> | undefined;

/**
 * The WAV's audio as interleaved integer samples, `chunkBytes` of the file at a time
 * (rounded down to whole frames), read from `fh` (opened by `openRegularFileStat`, which
 * refuses FIFOs and symlinks) with synchronous reads. Only one chunk is in memory: an
 * hour-long recording streams through in constant space.
 *
 * Synchronous, because each read of an asynchronous one is a round trip through libuv's
 * thread pool (a request, a thread woken, a completion back on the loop, a promise) that
 * costs several times the `read` of a file the analyzer has just written, still in the
 * page cache. A read blocks the event loop for one bounded chunk; the caller decides when
 * to let the loop run (flac-encode-job.ts).
 *
 * Each chunk is yielded in the same array, overwritten by the next one (the encoders copy
 * what they take). The read buffer and the sample array are kept for the next recording
 * (jobs of an encoder run one at a time; a second reader at the same time gets its own):
 * a recording then allocates nothing per chunk and nothing large at all, where each dead
 * buffer would cost page faults to map and a collection to find.
 */
export function* readPcmChunks(
  fh: SyncReadableFile,
  file: string,
  info: WavInfo,
  options: { chunkBytes?: number } = {},
): Generator<Int32Array<ArrayBuffer>, void, undefined> {
  const wanted = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const chunkBytes = Math.max(info.blockAlign, wanted - (wanted % info.blockAlign));
  const sampleCount = Math.floor(chunkBytes / (info.bitsPerSample / 8));
  const buffer = spareBytes && spareBytes.length >= chunkBytes ? spareBytes : Buffer.allocUnsafeSlow(chunkBytes);
  const samples = spareSamples && spareSamples.length >= sampleCount ? spareSamples : new Int32Array(sampleCount);
  if (buffer === spareBytes) spareBytes = undefined;
  if (samples === spareSamples) spareSamples = undefined;
  try {
    for (let done = 0; done < info.dataBytes; ) {
      const length = Math.min(chunkBytes, info.dataBytes - done);
      const bytesRead = fh.readSync(buffer, 0, length, info.dataOffset + done);
      if (bytesRead < length) {
        throw new AudioFileError(
          file,
          'truncated',
          `the file shrank while being read: expected ${info.dataBytes} bytes of audio, got ${done + bytesRead}`,
        );
      }
      done += length;
      yield decodeSamples(buffer.subarray(0, length), info, samples);
    }
  } finally {
    // Kept only up to the default size: a job that asked for larger chunks does not pin them.
    if (buffer.length <= DEFAULT_CHUNK_BYTES && (spareBytes === undefined || spareBytes.length < buffer.length)) spareBytes = buffer;
    if (samples.length <= DEFAULT_CHUNK_BYTES && (spareSamples === undefined || spareSamples.length < samples.length)) spareSamples = samples;
  }
}
