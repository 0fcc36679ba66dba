import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readWavInfo } from '../../../src/audio/wav.js';

/**
 * FLAC's MD5 of audio: over the samples as little-endian signed integers of the FLAC bit
 * depth. Also what tests compare a decoded FLAC with, where STREAMINFO carries no MD5.
 */
export function samplesMd5(samples: ArrayLike<number>, bits: number): string {
  const width = bits / 8;
  const bytes = Buffer.alloc(samples.length * width);
  for (let i = 0; i < samples.length; i++) bytes.writeIntLE(samples[i], i * width, width);
  return createHash('md5').update(bytes).digest('hex');
}

/** FLAC's MD5 of a 16-bit PCM WAV: its data chunk is the samples as little-endian integers already. */
export async function wavDataMd5(wav: string): Promise<string> {
  const info = await readWavInfo(wav);
  const bytes = readFileSync(wav).subarray(info.dataOffset, info.dataOffset + info.dataBytes);
  return createHash('md5').update(bytes).digest('hex');
}
