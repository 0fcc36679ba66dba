import { readFileSync } from 'node:fs';
import { loadLibFlac } from '../../../src/audio/libflac.js';

/**
 * Decode a FLAC file with libflacjs' decoder (the `flac` program is not installed on every build
 * machine), for bit-exact comparisons in tests. MD5 checking is on: libFLAC
 * compares the MD5 of what it decoded with STREAMINFO's and `finish` reports a mismatch.
 */
export interface DecodedFlac {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  totalSamples: number;
  /** Interleaved samples. */
  samples: Int32Array;
  /** libFLAC's verdict: the decoded audio matches STREAMINFO's MD5 (trivially true if that MD5 is zero). */
  md5Ok: boolean;
  /** Decoder error callbacks (lost sync, bad CRC, ...). */
  errors: string[];
}

export async function decodeFlac(file: string): Promise<DecodedFlac> {
  const { flac } = await loadLibFlac();
  const bytes = readFileSync(file);
  const decoder = flac.create_libflac_decoder(true);
  if (decoder === 0) throw new Error('could not create a FLAC decoder');
  let offset = 0;
  const frames: Uint8Array[][] = [];
  const errors: string[] = [];
  let meta: { sampleRate: number; channels: number; bitsPerSample: number; total_samples: number } | undefined;
  try {
    const status = flac.init_decoder_stream(
      decoder,
      (wanted) => {
        if (offset >= bytes.length) return { buffer: undefined, readDataLength: 0, error: false };
        const end = Math.min(offset + wanted, bytes.length);
        const buffer = new Uint8Array(bytes.subarray(offset, end));
        offset = end;
        return { buffer, readDataLength: buffer.length, error: false };
      },
      (channelData) => {
        frames.push(channelData.map((c) => Uint8Array.from(c)));
      },
      (code, description) => {
        errors.push(`${code}: ${String(description)}`);
      },
      (m) => {
        if (m) meta = m;
      },
    );
    if (status !== 0) throw new Error(`decoder init failed (${status})`);
    flac.FLAC__stream_decoder_process_until_end_of_stream(decoder);
    const md5Ok = Boolean(flac.FLAC__stream_decoder_finish(decoder)); // libflacjs returns 1/0
    if (!meta) throw new Error('no STREAMINFO decoded');
    return {
      sampleRate: meta.sampleRate,
      channels: meta.channels,
      bitsPerSample: meta.bitsPerSample,
      totalSamples: meta.total_samples,
      samples: interleave(frames, meta.channels, meta.bitsPerSample),
      md5Ok,
      errors,
    };
  } finally {
    flac.FLAC__stream_decoder_delete(decoder);
  }
}

/**
 * libflacjs hands each frame's channels as bytes: 24-bit samples as 4-byte little-endian
 * integers, 8- and 16-bit samples as 2-byte ones (after its own repacking).
 */
function interleave(frames: Uint8Array[][], channels: number, bits: number): Int32Array {
  const width = bits === 24 ? 4 : 2;
  const total = frames.reduce((n, f) => n + f[0].length / width, 0);
  const out = new Int32Array(total * channels);
  let frameStart = 0;
  for (const frame of frames) {
    const count = frame[0].length / width;
    for (let c = 0; c < channels; c++) {
      const view = new DataView(frame[c].buffer, frame[c].byteOffset, frame[c].byteLength);
      for (let i = 0; i < count; i++) {
        out[(frameStart + i) * channels + c] = width === 4 ? view.getInt32(i * 4, true) : view.getInt16(i * 2, true);
      }
    }
    frameStart += count;
  }
  return out;
}
