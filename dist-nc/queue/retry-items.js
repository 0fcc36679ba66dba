import { getItems } from './get-item.js';
import { formatItemId } from './item-id.js';
import { transitionWhere } from './state.js';
export function retryItems(q, which, options = {}) {
    const now = options.now ?? Date.now();
    const patch = { attempts: 0, nextAttemptAt: now, reconcile: false };
    return q.write(() => {
        const { moved, refused } = moveSelected(q, which, 'pending', { from: ['failed'], patch, now }, (state) => `it is ${state}; only failed items are retried`);
        return { retried: moved.map(({ kind, item }) => ({ kind, id: item.id })), refused };
    });
}
export function moveSelected(q, which, to, options, reason) {
    const result = { moved: [], refused: [] };
    for (const [kind, ids] of selected(which)) {
        const selection = ids ? { ids: 'SELECT value FROM json_each(@ids)', from: options.from } : { from: options.from ?? ['failed'] };
        const items = transitionWhere(q, kind, to, { ...options, ...selection, params: { ids: JSON.stringify(ids ?? []) } });
        result.moved.push(...items.map((item) => ({ kind, item })));
        if (ids)
            result.refused.push(...refusedOf(q, kind, ids, new Set(items.map((m) => m.id)), reason));
    }
    return result;
}
export function selected(which) {
    if (Array.isArray(which)) {
        const refs = which;
        const kinds = ['recording', 'detection'];
        return kinds
            .map((kind) => [kind, refs.filter((r) => r.kind === kind).map((r) => r.id)])
            .filter(([, ids]) => ids.length > 0);
    }
    const { kind } = which;
    return kind ? [[kind, null]] : [['recording', null], ['detection', null]];
}
export function refusedOf(q, kind, ids, moved, reason) {
    const rest = ids.filter((id) => !moved.has(id));
    if (rest.length === 0)
        return [];
    const items = getItems(q, kind, rest);
    return rest.map((id) => {
        const state = items.get(id)?.state ?? null;
        return { item: formatItemId(kind, id), kind, id, state, reason: state === null ? 'no such item' : reason(state) };
    });
}
