import { withRegularFile, type ReadableFile } from '../system/regular-file.js';
import { AudioFileError } from './errors.js';
import { parseBext, parseGuano, parseListInfo } from './riff-metadata.js';
import type { BextInfo } from './riff-metadata.js';
import { parseFmtChunk } from './wav-format.js';
import type { WavFormat } from './wav-format.js';

/**
 * What a WAV file's headers say, read without reading the audio.
 *
 * `dataBytes` is the audio actually present: the declared size when the file is
 * complete, else what the file holds after the data chunk's header (rounded down to
 * whole sample frames). `durationSec` follows `dataBytes`.
 */
export interface WavInfo extends WavFormat {
  /** Byte offset of the first sample. */
  dataOffset: number;
  /** Bytes of audio present in the file (whole frames). */
  dataBytes: number;
  /** The data chunk's size field as written (0 or 0xFFFFFFFF while a recorder writes). */
  declaredDataBytes: number;
  durationSec: number;
  /**
   * The data chunk's declared size is non-zero and fits in the file, and the RIFF size is
   * non-zero. A file still being written has a size of 0 (or a placeholder larger than
   * the file), or is shorter than declared.
   */
  complete: boolean;
  fileBytes: number;
  /** LIST/INFO `ICMT` (AudioMoth writes its recording time and serial here). */
  comment?: string;
  /** LIST/INFO `IART`. */
  artist?: string;
  /** Every LIST/INFO tag by id (`ICRD`, `INAM`, ...). */
  info?: Record<string, string>;
  /** GUANO `guan` chunk fields (`Timestamp`, `GUANO|Version`, ...). */
  guano?: Record<string, string>;
  /** Broadcast Wave `bext` origination fields. */
  bext?: BextInfo;
}

const RIFF_HEADER_BYTES = 12;
const CHUNK_HEADER_BYTES = 8;
/** Metadata chunks are small; a larger one is read only this far (a bound, not a limit on audio). */
const MAX_METADATA_BYTES = 64 * 1024;
/** The fmt fields we use end at byte 40 (EXTENSIBLE); vendor extensions after that are ignored. */
const MAX_FMT_BYTES = 64;
/** Guards against a corrupt file made of millions of empty chunks. */
const MAX_CHUNKS = 4096;
/** Data sizes that mean "not known yet" (some recorders write 0xFFFFFFFF until they finish). */
const PLACEHOLDER_SIZES = new Set([0, 0xffffffff]);

async function readAt(fh: ReadableFile, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/** Printable ASCII: how a real chunk id looks, as opposed to padding, zeros or audio. */
function isChunkId(bytes: Buffer): boolean {
  if (bytes.length < 4) return false;
  for (let i = 0; i < 4; i++) {
    const b = bytes[i];
    if (b < 0x20 || b > 0x7e) return false;
  }
  return true;
}

/**
 * Read a WAV file's headers: walk the RIFF chunks (any order; `LIST`, `fact`, `id3 `,
 * `bext`, `guan` and unknown chunks before or after `data`), resolve
 * WAVE_FORMAT_EXTENSIBLE, and say whether the file is complete. Reads a few small
 * pieces, never the audio.
 *
 * Throws AudioFileError (naming the file) for files that are not usable WAVs; check
 * `err.reason` to tell "still being written" (`empty`, `truncated`, `no-data`) from
 * "never will be". A missing file rejects with the system error (ENOENT); a FIFO, folder
 * or symlink with NotRegularFileError (see `openRegularFile`).
 */
export async function readWavInfo(file: string): Promise<WavInfo> {
  return withRegularFile(file, (fh) => readWavInfoFrom(fh, file));
}

/** `readWavInfo` from a descriptor the caller opened (with `openRegularFile`) and keeps; `fileBytes` when its stat is at hand. */
export async function readWavInfoFrom(fh: ReadableFile, file: string, knownBytes?: number): Promise<WavInfo> {
  const fileBytes = knownBytes ?? (await fh.stat()).size;
  if (fileBytes === 0) throw new AudioFileError(file, 'empty', 'file is empty (0 bytes)');

  const head = await readAt(fh, 0, RIFF_HEADER_BYTES);
  const magic = head.subarray(0, 4);
  if (magic.length === 4 && magic.toString('latin1') !== 'RIFF') {
    const what = magic.toString('latin1');
    if (what === 'RF64' || what === 'BW64') {
      throw new AudioFileError(file, 'unsupported-format', `${what} (64-bit WAV) is not supported, only RIFF WAV`);
    }
    if (what === 'RIFX') {
      throw new AudioFileError(file, 'unsupported-format', 'big-endian RIFX WAV is not supported');
    }
    // Never the bytes themselves: a file that is not audio may hold anything (a key, a token).
    throw new AudioFileError(file, 'not-riff', 'not a WAV file: it does not start with a RIFF header');
  }
  if (head.length < RIFF_HEADER_BYTES) {
    throw new AudioFileError(
      file,
      'truncated',
      `truncated header: ${fileBytes} bytes, a RIFF header needs ${RIFF_HEADER_BYTES}`,
    );
  }
  if (head.toString('latin1', 8, 12) !== 'WAVE') {
    throw new AudioFileError(
      file,
      'not-wave',
      'not a WAV file: a RIFF file of another form than WAVE',
    );
  }
  const riffBytes = head.readUInt32LE(4);

  let fmtBody: Buffer | undefined;
  let data: { offset: number; declared: number; present: number; complete: boolean } | undefined;
  let info: Record<string, string> | undefined;
  let guano: Record<string, string> | undefined;
  let bext: BextInfo | undefined;
  /** Why the walk ended: at the end of the file, in a chunk cut short, at bytes that are not a chunk. */
  let stop: 'end' | 'cut' | 'junk' = 'end';
  let chunks = 0;

  let pos = RIFF_HEADER_BYTES;
  for (; chunks < MAX_CHUNKS && pos < fileBytes; chunks++) {
    if (pos + CHUNK_HEADER_BYTES > fileBytes) {
      stop = 'cut';
      break;
    }
    const header = await readAt(fh, pos, CHUNK_HEADER_BYTES);
    if (!isChunkId(header)) {
      stop = 'junk'; // trailing junk or zero padding: no more chunks
      break;
    }
    const id = header.toString('latin1', 0, 4);
    const size = header.readUInt32LE(4);
    const body = pos + CHUNK_HEADER_BYTES;
    const fits = body + size <= fileBytes;

    if (id === 'data' && data === undefined) {
      const available = fileBytes - body;
      if (PLACEHOLDER_SIZES.has(size) || !fits) {
        // The recorder has not finalised the sizes: the audio runs to the end of the file.
        data = { offset: body, declared: size, present: available, complete: false };
        break;
      }
      data = { offset: body, declared: size, present: size, complete: true };
    } else if (!fits) {
      stop = 'cut';
      break;
    } else if (id === 'fmt ' && fmtBody === undefined) {
      fmtBody = await readAt(fh, body, Math.min(size, MAX_FMT_BYTES));
    } else if (id === 'LIST') {
      const tags = parseListInfo(await readAt(fh, body, Math.min(size, MAX_METADATA_BYTES)));
      if (tags) info = { ...tags, ...info };
    } else if (id === 'guan') {
      guano = parseGuano(await readAt(fh, body, Math.min(size, MAX_METADATA_BYTES)));
    } else if (id === 'bext') {
      bext = parseBext(await readAt(fh, body, Math.min(size, 338)));
    }
    pos = await nextChunkPosition(fh, body, size, fileBytes);
  }

  if (fmtBody === undefined) {
    if (data === undefined && (stop === 'cut' || chunks === 0)) {
      throw new AudioFileError(file, 'truncated', `truncated header: the file ends at byte ${fileBytes}, before the fmt chunk`);
    }
    throw new AudioFileError(file, 'no-fmt', 'no fmt chunk: the file does not say how its samples are stored');
  }
  const format = parseFmtChunk(fmtBody, file);
  if (data === undefined) {
    if (stop === 'cut') {
      throw new AudioFileError(file, 'truncated', `truncated header: the file ends at byte ${fileBytes}, before the data chunk`);
    }
    throw new AudioFileError(file, 'no-data', 'no data chunk (the file has no audio, or is still being written)');
  }

  const dataBytes = data.present - (data.present % format.blockAlign);
  const frames = dataBytes / format.blockAlign;
  return {
    ...format,
    dataOffset: data.offset,
    dataBytes,
    declaredDataBytes: data.declared,
    durationSec: frames / format.sampleRate,
    complete: data.complete && riffBytes !== 0,
    fileBytes,
    ...(info?.ICMT !== undefined && { comment: info.ICMT }),
    ...(info?.IART !== undefined && { artist: info.IART }),
    ...(info && { info }),
    ...(guano && { guano }),
    ...(bext && { bext }),
  };
}

/**
 * Chunks are word-aligned: an odd-sized chunk is followed by a pad byte. Some writers
 * forget it; when the byte after the chunk starts a plausible chunk id and the padded
 * position does not, we follow the writer rather than the spec.
 */
async function nextChunkPosition(fh: ReadableFile, body: number, size: number, fileBytes: number): Promise<number> {
  const unpadded = body + size;
  if ((size & 1) === 0) return unpadded;
  const padded = unpadded + 1;
  if (padded + CHUNK_HEADER_BYTES > fileBytes) return padded;
  const peek = await readAt(fh, unpadded, 5);
  if (!isChunkId(peek.subarray(1)) && isChunkId(peek)) return unpadded;
  return padded;
}

