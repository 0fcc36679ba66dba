import { TABLE } from './rows.js';
export function hold(q, kind, ids, reason, options = {}) {
    if (ids.length === 0)
        return 0;
    return q
        .stmt(`UPDATE ${TABLE[kind]} SET hold_reason = @reason, updated_at = @now ` +
        `WHERE id IN (SELECT value FROM json_each(@ids)) AND state NOT IN ('uploaded', 'dropped')`)
        .run({ reason, ids: JSON.stringify(ids), now: options.now ?? Date.now() }).changes;
}
export function release(q, kind, which, options = {}) {
    const now = options.now ?? Date.now();
    if (Array.isArray(which)) {
        if (which.length === 0)
            return 0;
        return q
            .stmt(`UPDATE ${TABLE[kind]} SET hold_reason = NULL, updated_at = @now WHERE id IN (SELECT value FROM json_each(@ids)) AND hold_reason IS NOT NULL`)
            .run({ ids: JSON.stringify(which), now }).changes;
    }
    const { reason } = which;
    return q.stmt(`UPDATE ${TABLE[kind]} SET hold_reason = NULL, updated_at = @now WHERE hold_reason = @reason`).run({ reason, now }).changes;
}
export const HELD = `hold_reason IS NOT NULL AND state NOT IN ('uploaded', 'dropped')`;
