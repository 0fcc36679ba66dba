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

/** 16-bit mono PCM samples of the calls over noise. */
export function synthesizeSoundscape(calls: readonly PlacedCall[], options: SynthOptions): Int16Array {
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

  const pcm = new Int16Array(total);
  for (let i = 0; i < total; i++) pcm[i] = Math.max(-32768, Math.min(32767, Math.round(mix[i] * 32767)));
  return pcm;
}

/** A canonical 44-byte-header PCM WAV file (RIFF, `fmt `, `data`) of 16-bit mono samples. */
export function wavFile(pcm: Int16Array, sampleRate: number): Buffer {
  const dataBytes = pcm.length * 2;
  const out = Buffer.alloc(44 + dataBytes);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < pcm.length; i++) out.writeInt16LE(pcm[i], 44 + i * 2);
  return out;
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
