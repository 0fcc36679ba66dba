import { QueueError } from './errors.js';
import { HELD } from './hold.js';
import { formatItemId, parseItemId } from './item-id.js';
import { TABLE, toItem } from './rows.js';
import { WAITING_STATES } from './state.js';
import { readStateCounts } from './state-counts.js';
import { ITEM_STATES } from './types.js';
const SORT_MAX = 50_000;
export function listItems(q, options) {
    if (!Number.isSafeInteger(options.limit) || options.limit < 1) {
        throw new QueueError('ERR_QUEUE_INVALID', `list limit must be a positive integer, got ${options.limit}`);
    }
    if (options.state !== undefined && !ITEM_STATES.includes(options.state)) {
        throw new QueueError('ERR_QUEUE_INVALID', `unknown state "${String(options.state)}": expected one of ${ITEM_STATES.join(', ')}`);
    }
    const after = options.afterId === undefined ? undefined : parseItemId(options.afterId, options.kind);
    const kinds = options.kind ? [options.kind] : ['recording', 'detection'];
    return q.read(() => {
        const items = [];
        let full = false;
        for (const kind of kinds) {
            if (after && after.kind === 'detection' && kind === 'recording')
                continue;
            const afterId = after?.kind === kind ? after.id : 0;
            const want = options.limit - items.length;
            const rows = options.held ? heldPage(q, kind, options.held, options.state, afterId, want + 1) : page(q, kind, options.state, afterId, want + 1);
            items.push(...rows.slice(0, want).map((row) => toItem(kind, row)));
            if (rows.length > want) {
                full = true;
                break;
            }
        }
        const last = items[items.length - 1];
        return { items, next: full && last ? formatItemId(last.kind, last.id) : null };
    });
}
function heldPage(q, kind, held, state, afterId, limit) {
    return q
        .stmt(`SELECT * FROM ${TABLE[kind]} WHERE ${HELD} AND (@reason IS NULL OR hold_reason = @reason) AND (@state IS NULL OR state = @state) AND id > @after ORDER BY id LIMIT @limit`)
        .all({ reason: held === true ? null : held, state: state ?? null, after: afterId, limit });
}
function page(q, kind, state, afterId, limit) {
    const table = TABLE[kind];
    if (state === undefined) {
        return q.stmt(`SELECT * FROM ${table} WHERE id > ? ORDER BY id LIMIT ?`).all(afterId, limit);
    }
    const many = readStateCounts(q, kind)[state] > SORT_MAX;
    const from = many ? `${table} NOT INDEXED` : table;
    const waiting = WAITING_STATES.includes(state) ? 'waiting = 1 AND ' : '';
    return q.stmt(`SELECT * FROM ${from} WHERE ${waiting}id > ? AND state = ? ORDER BY id LIMIT ?`).all(afterId, state, limit);
}
