import type { Queue } from './db.js';
import { releaseHolds } from './hold.js';
import { refusedOf, type RefusedItem } from './retry-items.js';
import type { ItemKind, ItemRef } from './types.js';

export interface ReleaseResult {
  released: ItemRef[];
  refused: RefusedItem[];
}

/** Which held items an operator releases: listed ones, or every held one (of a reason, of a kind). */
export type HeldSelection = readonly ItemRef[] | { held: true; reason?: string; kind?: ItemKind };

/**
 * Operator `queue release`: held items lose their hold and are due now; their state
 * does not change (a hold never changes it). Listed items that are not held are
 * refused, with why. One transaction.
 */
export function releaseHeld(q: Queue, which: HeldSelection, options: { now?: number } = {}): ReleaseResult {
  const now = options.now ?? Date.now();
  return q.write(() => {
    const result: ReleaseResult = { released: [], refused: [] };
    const listed = Array.isArray(which) ? (which as readonly ItemRef[]) : null;
    const { reason = null, kind = null } = listed ? {} : (which as { reason?: string; kind?: ItemKind });
    for (const k of ['recording', 'detection'] as const) {
      if (kind && k !== kind) continue;
      const ids = listed?.filter((r) => r.kind === k).map((r) => r.id) ?? null;
      if (ids?.length === 0) continue;
      const moved = new Set(releaseHolds(q, k, { ...(ids ? { ids } : {}), ...(reason !== null ? { reason } : {}) }, { now, due: true }));
      result.released.push(...[...moved].sort((a, b) => a - b).map((id) => ({ kind: k, id })));
      if (ids) result.refused.push(...refusedOf(q, k, ids, moved, (state) => (state === 'uploaded' || state === 'dropped' ? `it is ${state}` : `it is ${state} and not held`)));
    }
    return result;
  });
}
