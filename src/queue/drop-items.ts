import type { Queue } from './db.js';
import { formatItemId } from './item-id.js';
import { moveSelected, type OperatorSelection, type RefusedItem } from './retry-items.js';
import type { ItemState, QueueItem } from './types.js';

export interface DroppedItem {
  /** Operator id, e.g. `r12`. */
  item: string;
  /** The state it was dropped from. */
  from: ItemState;
  /** The item as it is now (state `dropped`), for the caller's log line. */
  value: QueueItem;
}

export interface DropResult {
  dropped: DroppedItem[];
  refused: RefusedItem[];
}

/**
 * Operator `queue drop`: `pending` or `failed` -> `dropped`, for good. Refused, with
 * why: `uploaded` items (they are at the service; dropping them locally changes
 * nothing there), `sending` and `unknown` items (a request with them may have
 * reached the service: "never uploaded" could be false, so the daemon settles them
 * first), and items already dropped. Returns what was dropped, so the caller logs
 * each one. One transaction.
 */
export function dropItems(q: Queue, which: OperatorSelection, options: { now?: number } = {}): DropResult {
  const now = options.now ?? Date.now();
  return q.write(() => {
    const { moved, refused } = moveSelected(q, which, 'dropped', { now }, refusal);
    const dropped = moved.map(({ kind, item }) => ({ item: formatItemId(kind, item.id), from: item.previousState!, value: item }));
    return { dropped, refused };
  });
}

function refusal(state: ItemState): string {
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
