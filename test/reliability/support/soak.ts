/**
 * Short and long forms of the reliability scenarios. `npm test` runs the short form
 * (a few cycles, a small backlog); `npm run test:soak` sets SOAK=1 for the long form.
 */
export const SOAK = process.env.SOAK === '1' || process.env.SOAK === 'true';

/** The short value under `npm test`, the long one under `npm run test:soak`. */
export function scaled<T>(short: T, soak: T): T {
  return SOAK ? soak : short;
}

/** Seed of the scenarios' random choices; `RELIABILITY_SEED` replays a run. */
export const SEED = Number(process.env.RELIABILITY_SEED ?? 20240501);

/** A small seeded generator (mulberry32): the same seed gives the same kill points and faults. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

