import type { Queue } from './db.js';
import { getItems } from './get-item.js';
import { formatItemId } from './item-id.js';
import { transitionWhere, type TransitionWhere } from './state.js';
import type { ItemKind, ItemRef, ItemState, QueueItem } from './types.js';

/** Which items an operator op applies to: listed ones, or every failed one (of a kind). */
export type OperatorSelection = readonly ItemRef[] | { failed: true; kind?: ItemKind };

export interface RefusedItem {
  /** Operator id, e.g. `r12`. */
  item: string;
  kind: ItemKind;
  id: number;
  /** The item's state, or null when there is no such item. */
  state: ItemState | null;
  reason: string;
}

export interface RetryResult {
  retried: ItemRef[];
  refused: RefusedItem[];
}

/**
 * Operator `queue retry`: `failed -> pending` with `attempts` reset and due now.
 * Items not in `failed` are refused (and reported), not moved. One transaction.
 */
export function retryItems(q: Queue, which: OperatorSelection, options: { now?: number } = {}): RetryResult {
  const now = options.now ?? Date.now();
  const patch = { attempts: 0, nextAttemptAt: now, reconcile: false };
  return q.write(() => {
    const { moved, refused } = moveSelected(q, which, 'pending', { from: ['failed'], patch, now }, (state) => `it is ${state}; only failed items are retried`);
    return { retried: moved.map(({ kind, item }) => ({ kind, id: item.id })), refused };
  });
}

/**
 * An operator op's one move: the selected items of each kind to `to` (listed ones from
 * `from`, or from any state the state table allows when `from` is not given; without a
 * list, every item in `from`, `failed` by default), and the listed items that did not
 * move, each with its state and `reason`. The caller holds the transaction.
 */
export function moveSelected(
  q: Queue,
  which: OperatorSelection,
  to: ItemState,
  options: Pick<TransitionWhere, 'from' | 'patch' | 'now'>,
  reason: (state: ItemState) => string,
): { moved: { kind: ItemKind; item: QueueItem }[]; refused: RefusedItem[] } {
  const result: { moved: { kind: ItemKind; item: QueueItem }[]; refused: RefusedItem[] } = { moved: [], refused: [] };
  for (const [kind, ids] of selected(which)) {
    const selection = ids ? { ids: 'SELECT value FROM json_each(@ids)', from: options.from } : { from: options.from ?? ['failed' as const] };
    const items = transitionWhere(q, kind, to, { ...options, ...selection, params: { ids: JSON.stringify(ids ?? []) } });
    result.moved.push(...items.map((item) => ({ kind, item })));
    if (ids) result.refused.push(...refusedOf(q, kind, ids, new Set(items.map((m) => m.id)), reason));
  }
  return result;
}

/** The selection grouped by kind; `null` ids means every failed item of the kind. */
function selected(which: OperatorSelection): [ItemKind, number[] | null][] {
  if (Array.isArray(which)) {
    const refs = which as readonly ItemRef[];
    const kinds: ItemKind[] = ['recording', 'detection'];
    return kinds
      .map((kind): [ItemKind, number[]] => [kind, refs.filter((r) => r.kind === kind).map((r) => r.id)])
      .filter(([, ids]) => ids.length > 0);
  }
  const { kind } = which as { kind?: ItemKind };
  return kind ? [[kind, null]] : [['recording', null], ['detection', null]];
}

/** The listed items that did not move, with their state and why. */
export function refusedOf(
  q: Queue,
  kind: ItemKind,
  ids: readonly number[],
  moved: ReadonlySet<number>,
  reason: (state: ItemState) => string,
): RefusedItem[] {
  const rest = ids.filter((id) => !moved.has(id));
  if (rest.length === 0) return [];
  const items = getItems(q, kind, rest);
  return rest.map((id) => {
    const state = items.get(id)?.state ?? null;
    return { item: formatItemId(kind, id), kind, id, state, reason: state === null ? 'no such item' : reason(state) };
  });
}
