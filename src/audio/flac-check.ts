import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encode } from 'node-wav';
import { errorMessage } from '../errors.js';
import { createFlacEncoder } from './flac-encoder.js';
import type { FlacEncoderOptions } from './flac-encoder.js';
import { readFlacInfo } from './flac-info.js';

export interface FlacEncoderCheck {
  ok: boolean;
  /** What encoded (or would have encoded), e.g. `libflacjs release.wasm (worker thread)`. */
  engine: string;
  detail?: string;
}

const SAMPLE_RATE = 8000;
const FRAMES = 2000; // a quarter of a second

/** A quarter second of a 440 Hz tone as a 16-bit mono WAV, and the MD5 FLAC must report for it. */
function probeWav(): { wav: Buffer; md5: string } {
  const tone = Float32Array.from({ length: FRAMES }, (_, i) => 0.37 * Math.sin((2 * Math.PI * 440 * i) / SAMPLE_RATE));
  const wav = encode([tone], { sampleRate: SAMPLE_RATE, bitDepth: 16 });
  // FLAC's MD5 is over the samples as little-endian signed integers: for 16-bit PCM, the bytes after the 44-byte header.
  return { wav, md5: createHash('md5').update(wav.subarray(44)).digest('hex') };
}

/**
 * For `station-agent doctor`: encode a generated tone with the encoder the agent would
 * use and check the result's STREAMINFO (sample count and MD5). Never throws.
 */
export async function checkFlacEncoder(options: FlacEncoderOptions = {}): Promise<FlacEncoderCheck> {
  const dir = await mkdtemp(path.join(tmpdir(), 'station-agent-flac-check-'));
  const encoder = createFlacEncoder(options);
  let engine = options.engine === 'native' ? 'native libFLAC' : options.engine === 'program' ? 'the flac program' : 'libflacjs';
  try {
    const { wav, md5 } = probeWav();
    const src = path.join(dir, 'probe.wav');
    const dest = path.join(dir, 'probe.flac');
    await writeFile(src, wav);
    const result = await encoder.encode(src, dest);
    engine = result.engine;
    const info = await readFlacInfo(dest);
    if (info.totalSamples !== FRAMES || info.sampleRate !== SAMPLE_RATE) {
      return { ok: false, engine, detail: `STREAMINFO says ${info.totalSamples} samples at ${info.sampleRate} Hz, expected ${FRAMES} at ${SAMPLE_RATE} Hz` };
    }
    if (info.md5 !== md5) {
      return { ok: false, engine, detail: `STREAMINFO MD5 ${info.md5} does not match the audio's ${md5}` };
    }
    return { ok: true, engine, detail: `encoded ${FRAMES} samples to ${info.bytes} bytes; STREAMINFO MD5 matches` };
  } catch (err) {
    return { ok: false, engine, detail: errorMessage(err) };
  } finally {
    await encoder.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}
