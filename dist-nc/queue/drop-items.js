import { formatItemId } from './item-id.js';
import { moveSelected } from './retry-items.js';
export function dropItems(q, which, options = {}) {
    const now = options.now ?? Date.now();
    return q.write(() => {
        const { moved, refused } = moveSelected(q, which, 'dropped', { now }, refusal);
        const dropped = moved.map(({ kind, item }) => ({ item: formatItemId(kind, item.id), from: item.previousState, value: item }));
        return { dropped, refused };
    });
}
function refusal(state) {
    switch (state) {
        case 'uploaded':
            return 'it is uploaded: the service has it, dropping it here would change nothing';
        case 'sending':
            return 'it is sending: a request with it may be at the service now; wait until the daemon has settled it (uploaded, pending or failed), then drop it if you still want to';
        case 'unknown':
            return 'it is unknown: it was sent and may already be at the service; the running daemon asks the service first (it becomes uploaded, or pending when the service does not have it), then drop it if you still want to';
        default:
            return `it is ${state}`;
    }
}
