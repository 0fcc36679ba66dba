import { writeFileSync } from 'node:fs';
import { encode } from 'node-wav';
import { createFlacEncoder, type EncodeResult } from '../../src/audio/flac-encoder.js';

/**
 * Synthetic soundscapes for the benchmark: 16-bit mono PCM with a field
 * recording's texture (a steady noise floor and a few bird-like chirps), so the
 * FLAC is about as large as a real one's rather than a few bytes of silence.
 * Deterministic: the same size on every run.
 */
export function benchWav(seconds: number, sampleRate = 48_000, seed = 1): Buffer {
  const frames = Math.round(seconds * sampleRate);
  const samples = new Float32Array(frames);
  let state = seed >>> 0 || 1;
  const noise = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 0x100000000 - 0.5;
  };
  let floor = 0;
  for (let i = 0; i < frames; i++) {
    const t = i / sampleRate;
    // Low-passed noise (wind, distant traffic) plus white noise (the microphone).
    floor = 0.97 * floor + 0.03 * noise() * 6_000;
    let x = floor + noise() * 160;
    // A chirp of 0.3 s every 1.7 s, sweeping 3 to 5 kHz.
    const phase = t % 1.7;
    if (phase < 0.3) {
      const f = 3_000 + (2_000 * phase) / 0.3;
      x += 5_000 * Math.sin(2 * Math.PI * f * phase) * Math.sin((Math.PI * phase) / 0.3);
    }
    samples[i] = x / 32_768;
  }
  return encode([samples], { sampleRate, bitDepth: 16 });
}

export function writeBenchWav(file: string, seconds: number, sampleRate = 48_000, seed = 1): number {
  const bytes = benchWav(seconds, sampleRate, seed);
  writeFileSync(file, bytes);
  return bytes.length;
}

/** Encodes with the project's encoder in its worker thread (the path the daemon takes). */
export async function encodeOnce(wav: string, flac: string): Promise<EncodeResult> {
  const encoder = createFlacEncoder({ thread: 'worker' });
  try {
    return await encoder.encode(wav, flac);
  } finally {
    await encoder.close();
  }
}
