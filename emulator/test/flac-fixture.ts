import { encode } from 'node-wav';

/**
 * A tiny FLAC writer for tests only (the product's encoder is src/audio): a `fLaC`
 * marker, a STREAMINFO block and frames of VERBATIM subframes (16-bit samples stored
 * as is), with the header CRC-8 and frame CRC-16 the format requires, so that any
 * FLAC decoder accepts the result.
 */

export interface FlacFixtureOptions {
  sampleRate?: number;
  channels?: number;
  /** Length of the audio in samples per channel. */
  samples?: number;
  /** Samples per frame. */
  blockSize?: number;
  /** Written into STREAMINFO instead of the real count (0 = "unknown", as a streaming encoder leaves it). */
  totalSamplesInHeader?: number;
}

function crc8(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** FLAC's UTF-8-like coding of the frame number. */
function codedNumber(n: number): number[] {
  if (n < 0x80) return [n];
  const bytes: number[] = [];
  let value = n;
  let lead = 0xc0;
  let room = 0x1f;
  while (value > room) {
    bytes.unshift(0x80 | (value & 0x3f));
    value = Math.floor(value / 64);
    lead = (lead >> 1) | 0x80;
    room >>= 1;
  }
  return [lead | value, ...bytes];
}

function streamInfo(o: Required<Omit<FlacFixtureOptions, 'totalSamplesInHeader'>>, totalSamples: number): Buffer {
  const info = Buffer.alloc(34);
  info.writeUInt16BE(o.blockSize, 0);
  info.writeUInt16BE(o.blockSize, 2);
  // min/max frame size 0 = unknown (bytes 4..9 stay zero)
  info[10] = (o.sampleRate >> 12) & 0xff;
  info[11] = (o.sampleRate >> 4) & 0xff;
  info[12] = ((o.sampleRate & 0x0f) << 4) | ((o.channels - 1) << 1) | ((16 - 1) >> 4);
  info[13] = (((16 - 1) & 0x0f) << 4) | Math.floor(totalSamples / 2 ** 32);
  info.writeUInt32BE(totalSamples % 2 ** 32, 14);
  // MD5 left zero: "not computed"
  return info;
}

function frame(index: number, channels: number, block: Int16Array[]): Buffer {
  const length = block[0].length;
  const header = Buffer.from([
    0xff,
    0xf8, // sync, fixed block size
    0x70, // block size: 16-bit (n-1) at end of header; sample rate: from STREAMINFO
    ((channels - 1) << 4) | (0b100 << 1), // independent channels, 16 bits per sample
    ...codedNumber(index),
    ((length - 1) >> 8) & 0xff,
    (length - 1) & 0xff,
  ]);
  const withCrc = Buffer.concat([header, Buffer.from([crc8(header)])]);
  const subframes = block.map((samples) => {
    const sub = Buffer.alloc(1 + samples.length * 2);
    sub[0] = 0x02; // VERBATIM, no wasted bits
    samples.forEach((s, i) => sub.writeInt16BE(s, 1 + i * 2));
    return sub;
  });
  const body = Buffer.concat([withCrc, ...subframes]);
  const footer = Buffer.alloc(2);
  footer.writeUInt16BE(crc16(body));
  return Buffer.concat([body, footer]);
}

/** A FLAC file of a quiet 440 Hz tone (default: 16 kHz mono, 3 s). */
export function makeFlac(options: FlacFixtureOptions = {}): Buffer {
  const o = {
    sampleRate: options.sampleRate ?? 16_000,
    channels: options.channels ?? 1,
    samples: options.samples ?? 3 * (options.sampleRate ?? 16_000),
    blockSize: options.blockSize ?? 4096,
  };
  const parts: Buffer[] = [Buffer.from('fLaC', 'latin1'), Buffer.from([0x80, 0, 0, 34])];
  parts.push(streamInfo(o, options.totalSamplesInHeader ?? o.samples));
  for (let start = 0, index = 0; start < o.samples; start += o.blockSize, index++) {
    const length = Math.min(o.blockSize, o.samples - start);
    const block = Array.from({ length: o.channels }, () => {
      const samples = new Int16Array(length);
      for (let i = 0; i < length; i++) {
        samples[i] = Math.round(1000 * Math.sin((2 * Math.PI * 440 * (start + i)) / o.sampleRate));
      }
      return samples;
    });
    parts.push(frame(index, o.channels, block));
  }
  return Buffer.concat(parts);
}

/** A PCM WAV of silence (node-wav's encoder), for the "WAV is refused" case. */
export function makeWav(seconds = 1, sampleRate = 16_000): Buffer {
  return encode([new Float32Array(seconds * sampleRate)], { sampleRate, bitDepth: 16 });
}
