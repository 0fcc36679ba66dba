import { encode } from 'node-wav';

/**
 * Bird-like test audio, synthesised: each call is a few frequency-modulated sine
 * sweeps ("chirps") under a smooth envelope, over a little noise. Nothing here is
 * a real recording (the real fixtures are not ours to ship); it only has to look
 * and sound like a soundscape with calls where the detections say, and be cheap
 * (a 15 s file takes milliseconds).
 */

/** How one species' call is drawn: `notes` chirps sweeping `fromHz` -> `toHz`. */
export interface CallShape {
  fromHz: number;
  toHz: number;
  /** Length of one note, seconds. */
  noteSec: number;
  /** Pause between notes, seconds. */
  gapSec: number;
  notes: number;
  /** Vibrato depth in Hz (0: a clean sweep). */
  wobbleHz?: number;
}

export interface PlacedCall {
  /** Seconds from the start of the recording. */
  atSec: number;
  shape: CallShape;
  /** Peak amplitude, 0..1. */
  level: number;
}

export interface SynthOptions {
  durationSec: number;
  sampleRate: number;
  /** Seed of the noise, so a sample folder is the same every time. */
  seed: number;
  /** Noise amplitude, 0..1. Default 0.01. */
  noise?: number;
}

/** Mono samples (-1..1) of the calls over noise. */
export function synthesizeSoundscape(calls: readonly PlacedCall[], options: SynthOptions): Float32Array {
  const { sampleRate } = options;
  const total = Math.round(options.durationSec * sampleRate);
  const mix = new Float32Array(total);
  const random = mulberry32(options.seed);
  const noise = options.noise ?? 0.01;
  for (let i = 0; i < total; i++) mix[i] = (random() * 2 - 1) * noise;

  for (const call of calls) {
    const { shape } = call;
    for (let n = 0; n < shape.notes; n++) {
      const start = Math.round((call.atSec + n * (shape.noteSec + shape.gapSec)) * sampleRate);
      const length = Math.round(shape.noteSec * sampleRate);
      let phase = 0;
      for (let i = 0; i < length && start + i < total; i++) {
        const t = i / length;
        const wobble = shape.wobbleHz ? shape.wobbleHz * Math.sin(2 * Math.PI * 30 * (i / sampleRate)) : 0;
        const freq = shape.fromHz + (shape.toHz - shape.fromHz) * t + wobble;
        phase += (2 * Math.PI * freq) / sampleRate;
        // Hann window: no clicks at the note's ends.
        const envelope = 0.5 - 0.5 * Math.cos(2 * Math.PI * t);
        if (start + i >= 0) mix[start + i] += call.level * envelope * Math.sin(phase);
      }
    }
  }
  return mix;
}

/** A canonical 44-byte-header PCM WAV file of 16-bit mono samples (node-wav's encoder clips to -1..1). */
export function wavFile(samples: Float32Array, sampleRate: number): Buffer {
  return encode([samples], { sampleRate, bitDepth: 16 });
}

/** A small deterministic PRNG (mulberry32): the same seed gives the same noise. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
