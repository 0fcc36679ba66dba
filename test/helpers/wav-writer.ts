import { writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A small WAV writer for tests, able to produce the odd layouts real recorders write:
 * chunks in any order, metadata before or after `data`, odd-sized chunks with or without
 * their pad byte, WAVE_FORMAT_EXTENSIBLE, 8/16/24/32-bit integer and 32/64-bit float,
 * sizes that were never filled in, files cut short.
 */

export type SampleFormat = 'pcm8' | 'pcm16' | 'pcm24' | 'pcm32' | 'float32' | 'float64';

export interface RiffChunk {
  id: string;
  body: Buffer;
  /** The size written in the chunk header; default `body.length`. */
  declaredSize?: number;
  /** Leave out the pad byte after an odd-sized body (a common writer bug). */
  noPad?: boolean;
}

const BITS: Record<SampleFormat, number> = { pcm8: 8, pcm16: 16, pcm24: 24, pcm32: 32, float32: 32, float64: 64 };

export function bitsOf(format: SampleFormat): number {
  return BITS[format];
}

export function isFloat(format: SampleFormat): boolean {
  return format === 'float32' || format === 'float64';
}

const KSDATAFORMAT_TAIL = '000000001000800000aa00389b71';

export function fmtChunk(opts: {
  format: SampleFormat;
  channels: number;
  sampleRate: number;
  extensible?: boolean;
  /** EXTENSIBLE's wValidBitsPerSample (e.g. 24 in a 32-bit container). */
  validBits?: number;
  /** Override the format tag (e.g. 0x0055 for MP3). */
  formatTag?: number;
  /** Override block align (to write a broken header). */
  blockAlign?: number;
}): RiffChunk {
  const bits = BITS[opts.format];
  const tag = opts.formatTag ?? (isFloat(opts.format) ? 3 : 1);
  const blockAlign = opts.blockAlign ?? (opts.channels * bits) / 8;
  const body = Buffer.alloc(opts.extensible ? 40 : 16);
  body.writeUInt16LE(opts.extensible ? 0xfffe : tag, 0);
  body.writeUInt16LE(opts.channels, 2);
  body.writeUInt32LE(opts.sampleRate, 4);
  body.writeUInt32LE(opts.sampleRate * blockAlign, 8);
  body.writeUInt16LE(blockAlign, 12);
  body.writeUInt16LE(bits, 14);
  if (opts.extensible) {
    body.writeUInt16LE(22, 16);
    body.writeUInt16LE(opts.validBits ?? bits, 18);
    body.writeUInt32LE(opts.channels === 2 ? 0x3 : 0x4, 20);
    body.writeUInt16LE(tag, 24);
    Buffer.from(KSDATAFORMAT_TAIL, 'hex').copy(body, 26);
  }
  return { id: 'fmt ', body };
}

export function dataChunk(pcm: Buffer, declaredSize?: number): RiffChunk {
  return { id: 'data', body: pcm, declaredSize };
}

export function factChunk(frames: number): RiffChunk {
  const body = Buffer.alloc(4);
  body.writeUInt32LE(frames, 0);
  return { id: 'fact', body };
}

/** LIST/INFO with NUL-terminated values (odd sizes padded), as AudioMoth writes it. */
export function listInfoChunk(tags: Record<string, string>, encoding: BufferEncoding = 'utf8'): RiffChunk {
  const parts: Buffer[] = [Buffer.from('INFO', 'latin1')];
  for (const [id, value] of Object.entries(tags)) {
    const text = Buffer.concat([Buffer.from(value, encoding), Buffer.alloc(1)]);
    const header = Buffer.alloc(8);
    header.write(id, 0, 'latin1');
    header.writeUInt32LE(text.length, 4);
    parts.push(header, text);
    if (text.length % 2 === 1) parts.push(Buffer.alloc(1));
  }
  return { id: 'LIST', body: Buffer.concat(parts) };
}

/** A GUANO `guan` chunk: `GUANO|Version:1.0` then `Key:Value` lines. */
export function guanoChunk(fields: Record<string, string>, separator = '\n'): RiffChunk {
  const lines = ['GUANO|Version:1.0', ...Object.entries(fields).map(([k, v]) => `${k}:${v}`)];
  return { id: 'guan', body: Buffer.from(lines.join(separator), 'utf8') };
}

export function bextChunk(opts: { description: string; originator: string; date: string; time: string }): RiffChunk {
  const body = Buffer.alloc(602);
  body.write(opts.description, 0, 256, 'latin1');
  body.write(opts.originator, 256, 32, 'latin1');
  body.write(opts.date, 320, 10, 'latin1');
  body.write(opts.time, 330, 8, 'latin1');
  return { id: 'bext', body };
}

export function rawChunk(id: string, body: Buffer | string): RiffChunk {
  return { id, body: typeof body === 'string' ? Buffer.from(body, 'latin1') : body };
}

/** Assemble `RIFF <size> WAVE` and the chunks in the order given. */
export function buildRiff(chunks: RiffChunk[], opts: { riffSize?: number; form?: string } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const chunk of chunks) {
    const header = Buffer.alloc(8);
    header.write(chunk.id, 0, 'latin1');
    header.writeUInt32LE(chunk.declaredSize ?? chunk.body.length, 4);
    parts.push(header, chunk.body);
    if (chunk.body.length % 2 === 1 && !chunk.noPad) parts.push(Buffer.alloc(1));
  }
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(opts.riffSize ?? body.length + 4, 4);
  head.write(opts.form ?? 'WAVE', 8, 'latin1');
  return Buffer.concat([head, body]);
}

/**
 * Interleaved samples to WAV bytes. Integer formats take signed integers in their range
 * (pcm8 too: the writer adds WAV's 128 offset); float formats take floats.
 */
export function encodePcm(samples: ArrayLike<number>, format: SampleFormat): Buffer {
  const width = BITS[format] / 8;
  const out = Buffer.alloc(samples.length * width);
  for (let i = 0; i < samples.length; i++) {
    const v = samples[i];
    const o = i * width;
    switch (format) {
      case 'pcm8':
        out.writeUInt8(v + 128, o);
        break;
      case 'pcm16':
        out.writeInt16LE(v, o);
        break;
      case 'pcm24':
        out.writeIntLE(v, o, 3);
        break;
      case 'pcm32':
        out.writeInt32LE(v, o);
        break;
      case 'float32':
        out.writeFloatLE(v, o);
        break;
      case 'float64':
        out.writeDoubleLE(v, o);
        break;
    }
  }
  return out;
}

/**
 * A deterministic test signal: a sine sweep (100 Hz up to a quarter of the sample rate)
 * plus low-level pseudo-random noise so every bit, including the lowest, is exercised.
 * Integer formats span about 70% of full scale; float formats include a few samples
 * beyond +-1 (to exercise clipping) when `overdrive` is set.
 */
export function sineSweep(opts: {
  frames: number;
  channels: number;
  sampleRate: number;
  format: SampleFormat;
  overdrive?: boolean;
  seed?: number;
}): number[] {
  const { frames, channels, sampleRate, format } = opts;
  const full = isFloat(format) ? 1 : 2 ** (BITS[format] - 1);
  let state = opts.seed ?? 12345;
  const noise = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 0x100000000 - 0.5;
  };
  const out: number[] = new Array<number>(frames * channels);
  const f0 = 100;
  const f1 = sampleRate / 4;
  for (let i = 0; i < frames; i++) {
    const t = i / sampleRate;
    const duration = frames / sampleRate;
    const phase = 2 * Math.PI * (f0 * t + ((f1 - f0) * t * t) / (2 * duration));
    for (let c = 0; c < channels; c++) {
      let x = 0.7 * Math.sin(phase + c * 0.9) + 0.01 * noise();
      if (opts.overdrive && i % 997 === 0) x = c % 2 === 0 ? 1.5 : -1.5;
      if (isFloat(format)) {
        out[i * channels + c] = x;
      } else {
        out[i * channels + c] = Math.max(-full, Math.min(full - 1, Math.round(x * full)));
      }
    }
  }
  return out;
}

export interface BuiltWav {
  bytes: Buffer;
  /** Interleaved samples as written (integers, or floats for float formats). */
  samples: number[];
  /** The data chunk's bytes. */
  pcm: Buffer;
  frames: number;
}

export interface WavSpec {
  format?: SampleFormat;
  channels?: number;
  sampleRate?: number;
  frames?: number;
  /** Use these samples instead of a sweep. */
  samples?: number[];
  extensible?: boolean;
  validBits?: number;
  /** Chunks between fmt and data. */
  before?: RiffChunk[];
  /** Chunks after data. */
  after?: RiffChunk[];
  /** Size field written for `data` (0 or 0xFFFFFFFF while "recording"). */
  declaredDataBytes?: number;
  riffSize?: number;
  /** Put fmt after data. */
  fmtLast?: boolean;
  /** Cut the finished file to this many bytes. */
  truncateTo?: number;
  overdrive?: boolean;
}

export function buildWav(spec: WavSpec = {}): BuiltWav {
  const format = spec.format ?? 'pcm16';
  const channels = spec.channels ?? 1;
  const sampleRate = spec.sampleRate ?? 16000;
  const samples =
    spec.samples ?? sineSweep({ frames: spec.frames ?? 4000, channels, sampleRate, format, overdrive: spec.overdrive });
  const pcm = encodePcm(samples, format);
  const fmt = fmtChunk({ format, channels, sampleRate, extensible: spec.extensible, validBits: spec.validBits });
  const data = dataChunk(pcm, spec.declaredDataBytes);
  const chunks = spec.fmtLast
    ? [...(spec.before ?? []), data, fmt, ...(spec.after ?? [])]
    : [fmt, ...(spec.before ?? []), data, ...(spec.after ?? [])];
  let bytes = buildRiff(chunks, { riffSize: spec.riffSize });
  if (spec.truncateTo !== undefined) bytes = bytes.subarray(0, spec.truncateTo);
  return { bytes, samples, pcm, frames: samples.length / channels };
}

export function writeWav(file: string, spec: WavSpec = {}): BuiltWav {
  const built = buildWav(spec);
  writeFileSync(file, built.bytes);
  return built;
}

/**
 * Numbered files in a test's temporary folder (`dir` is read at each call: the folder is
 * made in a `beforeAll`): `bytes` as given, or a WAV built from `spec`.
 */
export function numberedFiles(dir: () => string): {
  fileWith: (bytes: Buffer | string, name?: string) => string;
  wavFile: (spec?: WavSpec) => string;
} {
  let counter = 0;
  return {
    fileWith: (bytes, name = `f${++counter}.wav`) => {
      const file = path.join(dir(), name);
      writeFileSync(file, bytes);
      return file;
    },
    wavFile: (spec = {}) => {
      const file = path.join(dir(), `w${++counter}.wav`);
      writeWav(file, spec);
      return file;
    },
  };
}
