import type { Queue } from '../queue/db.js';
import { getMeta, setMeta, type PolicyCounts } from '../queue/meta.js';

/**
 * What the station's policies kept back, cumulative since the queue was created: kept in
 * the queue's `meta` table (key `policyCounts`) so that `status` and the metrics show
 * them across restarts. Rows are counted each time their file is ingested (a forced
 * re-ingest counts them again).
 */
export type { PolicyCounts };

const POLICY_COUNTS_KEY = 'policyCounts';

export function emptyCounts(): PolicyCounts {
  return { humanSoundscapesWithheld: 0, nonBird: {}, excluded: 0, belowSpeciesMinConfidence: 0, speciesGateExpired: 0 };
}

/** The stored counts (all zero before the first). */
export function readPolicyCounts(q: Queue): PolicyCounts {
  const stored = getMeta(q, POLICY_COUNTS_KEY) ?? {};
  return { ...emptyCounts(), ...stored, nonBird: { ...stored.nonBird } };
}

function isEmpty(d: PolicyCounts): boolean {
  return d.humanSoundscapesWithheld + d.excluded + d.belowSpeciesMinConfidence + d.speciesGateExpired === 0 && Object.keys(d.nonBird).length === 0;
}

/** Adds `d` into `into` (in memory: one file's batches, counted once at its end). */
export function mergeCounts(into: PolicyCounts, d: PolicyCounts): void {
  into.humanSoundscapesWithheld += d.humanSoundscapesWithheld;
  into.excluded += d.excluded;
  into.belowSpeciesMinConfidence += d.belowSpeciesMinConfidence;
  into.speciesGateExpired += d.speciesGateExpired;
  for (const [name, n] of Object.entries(d.nonBird)) into.nonBird[name] = (into.nonBird[name] ?? 0) + n;
}

/** Adds `d` to the stored counts (in the caller's transaction, if any). Writes nothing when `d` is all zero. */
export function addPolicyCounts(q: Queue, d: PolicyCounts, options: { now?: number } = {}): void {
  if (isEmpty(d)) return;
  q.write(() => {
    const c = readPolicyCounts(q);
    mergeCounts(c, d);
    setMeta(q, POLICY_COUNTS_KEY, c, options);
  });
}
