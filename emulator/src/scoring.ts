import { createHash } from 'node:crypto';
import type { Certainty } from '../../src/wire/types.js';

/**
 * The local service's calculated quality measures. The real service derives them
 * from its range models and vote history, which are not public; this rule is a
 * documented stand-in (see docs/EMULATOR.md) that is deterministic for a given
 * seed, so tests and benchmarks can predict every value.
 *
 * - probability: how likely the species is at the place, in [0, 1] with 3 decimals:
 *   the first 4 bytes of SHA-256(`<seed>|<scientific name, lower case>|<lat, 1 decimal>|<lon, 1 decimal>`)
 *   read as an unsigned integer and divided by 2^32.
 * - score: 10 × confidence × (0.5 + 0.5 × probability), in [0, 10] with 3 decimals.
 *   A confident detection of an improbable species keeps at least half its score.
 * - certainty from the score: >= 7 almost_certain, >= 5 very_likely, >= 3 uncertain,
 *   else unlikely.
 */
export interface Quality {
  probability: number;
  score: number;
  certainty: Certainty;
}

export const CERTAINTY_THRESHOLDS: readonly (readonly [number, Certainty])[] = [
  [7, 'almost_certain'],
  [5, 'very_likely'],
  [3, 'uncertain'],
];

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export function probabilityOf(seed: number, scientificName: string, lat: number, lon: number): number {
  const key = `${seed}|${scientificName.trim().toLowerCase()}|${lat.toFixed(1)}|${lon.toFixed(1)}`;
  const digest = createHash('sha256').update(key).digest();
  return round3(digest.readUInt32BE(0) / 2 ** 32);
}

export function scoreOf(confidence: number, probability: number): number {
  return round3(10 * confidence * (0.5 + 0.5 * probability));
}

export function certaintyOf(score: number): Certainty {
  for (const [minimum, certainty] of CERTAINTY_THRESHOLDS) if (score >= minimum) return certainty;
  return 'unlikely';
}

export function qualityOf(seed: number, scientificName: string, lat: number, lon: number, confidence: number): Quality {
  const probability = probabilityOf(seed, scientificName, lat, lon);
  const score = scoreOf(confidence, probability);
  return { probability, score, certainty: certaintyOf(score) };
}
