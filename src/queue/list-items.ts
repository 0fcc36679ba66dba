import type { Queue } from './db.js';
import { QueueError } from './errors.js';
import { HELD } from './hold.js';
import { formatItemId, parseItemId } from './item-id.js';
import { TABLE, toItem, type ItemRow } from './rows.js';
import { WAITING_STATES } from './state.js';
import { readStateCounts } from './state-counts.js';
import { ITEM_STATES, type ItemKind, type ItemState, type QueueItem } from './types.js';

export interface ListOptions {
  /** Only items in this state. */
  state?: ItemState;
  /** Only this kind; default both, recordings first. */
  kind?: ItemKind;
  limit: number;
  /** Only items held back (any reason), or held for this reason. */
  held?: true | string;
  /** Continue after this item: an operator id (`r12`, `d345`), or a bare number with `kind`. Use `next` of the previous page. */
  afterId?: string;
}

export interface ListPage {
  items: QueueItem[];
  /** The `afterId` of the next page, or null when this page is the last. */
  next: string | null;
}

/**
 * Above this many items in the state, list by walking the table in id order and
 * filtering, rather than sorting the state's whole index range.
 */
const SORT_MAX = 50_000;

/** A page of items in id order, for `queue list`. */
export function listItems(q: Queue, options: ListOptions): ListPage {
  if (!Number.isSafeInteger(options.limit) || options.limit < 1) {
    throw new QueueError('ERR_QUEUE_INVALID', `list limit must be a positive integer, got ${options.limit}`);
  }
  if (options.state !== undefined && !ITEM_STATES.includes(options.state)) {
    throw new QueueError('ERR_QUEUE_INVALID', `unknown state "${String(options.state)}": expected one of ${ITEM_STATES.join(', ')}`);
  }
  const after = options.afterId === undefined ? undefined : parseItemId(options.afterId, options.kind);
  const kinds: ItemKind[] = options.kind ? [options.kind] : ['recording', 'detection'];
  return q.read(() => {
    const items: QueueItem[] = [];
    let full = false;
    for (const kind of kinds) {
      // Recordings come before detections: after a detection, no recording is left.
      if (after && after.kind === 'detection' && kind === 'recording') continue;
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

/** Held items walk the held index (few, usually), whatever their state. */
function heldPage(q: Queue, kind: ItemKind, held: true | string, state: ItemState | undefined, afterId: number, limit: number): ItemRow[] {
  return q
    .stmt(
      `SELECT * FROM ${TABLE[kind]} WHERE ${HELD} AND (@reason IS NULL OR hold_reason = @reason) AND (@state IS NULL OR state = @state) AND id > @after ORDER BY id LIMIT @limit`,
    )
    .all({ reason: held === true ? null : held, state: state ?? null, after: afterId, limit }) as ItemRow[];
}

function page(q: Queue, kind: ItemKind, state: ItemState | undefined, afterId: number, limit: number): ItemRow[] {
  const table = TABLE[kind];
  if (state === undefined) {
    return q.stmt(`SELECT * FROM ${table} WHERE id > ? ORDER BY id LIMIT ?`).all(afterId, limit) as ItemRow[];
  }
  const many = readStateCounts(q, kind)[state] > SORT_MAX;
  const from = many ? `${table} NOT INDEXED` : table;
  // The claim index holds only waiting items: a settled state is read in id order.
  const waiting = WAITING_STATES.includes(state) ? 'waiting = 1 AND ' : '';
  return q.stmt(`SELECT * FROM ${from} WHERE ${waiting}id > ? AND state = ? ORDER BY id LIMIT ?`).all(afterId, state, limit) as ItemRow[];
}
