import { TABLE } from './rows.js';
const REVIEW_PAGE = 500;
export function reviewHolds(q, kind, reason, stillHeld, options = {}) {
    const now = options.now ?? Date.now();
    const page = q.stmt(`SELECT id, timestamp FROM ${TABLE[kind]} WHERE hold_reason = @reason AND id > @after AND state NOT IN ('uploaded', 'dropped') ORDER BY id LIMIT ${REVIEW_PAGE}`);
    const free = q.stmt(`UPDATE ${TABLE[kind]} SET hold_reason = NULL, next_attempt_at = @now, updated_at = @now WHERE id IN (SELECT value FROM json_each(@ids)) AND hold_reason = @reason`);
    let released = 0;
    for (let after = 0;;) {
        const items = page.all({ reason, after });
        if (items.length === 0)
            return released;
        const ids = items.filter((item) => !stillHeld(item)).map((item) => item.id);
        if (ids.length > 0)
            released += free.run({ ids: JSON.stringify(ids), reason, now }).changes;
        after = items[items.length - 1].id;
    }
}
