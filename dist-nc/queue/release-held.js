import { TABLE } from './rows.js';
import { HELD } from './hold.js';
import { refusedOf } from './retry-items.js';
export function releaseHeld(q, which, options = {}) {
    const now = options.now ?? Date.now();
    return q.write(() => {
        const result = { released: [], refused: [] };
        const listed = Array.isArray(which) ? which : null;
        const { reason = null, kind = null } = listed ? {} : which;
        for (const k of ['recording', 'detection']) {
            if (kind && k !== kind)
                continue;
            const ids = listed?.filter((r) => r.kind === k).map((r) => r.id) ?? null;
            if (ids?.length === 0)
                continue;
            const rows = q
                .stmt(`UPDATE ${TABLE[k]} SET hold_reason = NULL, next_attempt_at = @now, updated_at = @now ` +
                `WHERE ${HELD} AND (@ids IS NULL OR id IN (SELECT value FROM json_each(@ids))) AND (@reason IS NULL OR hold_reason = @reason) RETURNING id`)
                .all({ ids: ids && JSON.stringify(ids), reason, now });
            const moved = new Set(rows.map((r) => r.id));
            result.released.push(...[...moved].sort((a, b) => a - b).map((id) => ({ kind: k, id })));
            if (ids)
                result.refused.push(...refusedOf(q, k, ids, moved, (state) => (state === 'uploaded' || state === 'dropped' ? `it is ${state}` : `it is ${state} and not held`)));
        }
        return result;
    });
}
