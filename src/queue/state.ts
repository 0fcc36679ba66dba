import type { Queue } from './db.js';
import { QueueError, QueueTransitionError } from './errors.js';
import { requeuedFirstWaiting, settledFirstWaiting } from './first-waiting.js';
import { formatItemId } from './item-id.js';
import { TABLE, toItem, type ItemRow } from './rows.js';
import { addToStateCounts, type StateDeltas } from './state-counts.js';
import type { ItemKind, ItemOf, ItemState } from './types.js';
import { spoolOf, type SpoolTotal } from './waiting-spool.js';

/**
 * The item state machine, shared by recordings (soundscapes) and detections. It
 * mirrors the table in docs/ARCHITECTURE.md; every state change in the queue goes
 * through {@link transition} or its batch form {@link transitionWhere}, which read
 * the allowed `from` states from this table and check them in the UPDATE itself
 * (`WHERE ... AND state IN (...)`), so a concurrent change can never be overwritten.
 *
 * | from      | to        | when                                                                |
 * |-----------|-----------|---------------------------------------------------------------------|
 * | (new)     | pending   | ingested (an INSERT in enqueue.ts, not an UPDATE)                   |
 * | pending   | sending   | claimed by the uploader (due: next_attempt_at <= now), its FLAC ready |
 * | sending   | uploaded  | 2xx with the service's id (stored in the same UPDATE)               |
 * | sending   | pending   | transient failure: attempts + 1, next_attempt_at by backoff         |
 * | sending   | unknown   | outcome unknown (timeout/reset after send); every `sending` row at start-up |
 * | unknown   | sending   | claimed for reconciliation (`reconcile: true`)                      |
 * | sending   | uploaded  | (reconcile) the service already has it: its id is adopted           |
 * | sending   | failed    | terminal: 422, invalid audio, unresolvable species                  |
 * | pending   | failed    | its audio cannot be encoded (invalid or missing WAV): nothing sent  |
 * | failed    | pending   | operator `queue retry`                                              |
 * | pending   | dropped   | operator `queue drop` (logged)                                      |
 * | failed    | dropped   | operator `queue drop` (logged); dropping twice is refused, not repeated |
 * | uploaded  | pending   | the delivery audit: acknowledged, then missing at the service (once) |
 *
 * `sending` means only that: a request with the item may be at the service (or on its
 * way). Encoding is not a state: a WAV is encoded into memory before its claim (nothing
 * is written for it), or into a FLAC file in the spool while the item stays `pending`.
 * `sending` and `unknown` items cannot be dropped: "never uploaded" would be a lie. The daemon settles
 * them first (uploaded, or pending/failed when the service does not have them).
 */
export interface Transition {
  from: ItemState | 'new';
  to: ItemState;
  when: string;
}

export const TRANSITIONS: readonly Transition[] = [
  { from: 'new', to: 'pending', when: 'ingested' },
  { from: 'pending', to: 'sending', when: 'claimed by the uploader, its FLAC ready' },
  { from: 'sending', to: 'uploaded', when: '2xx with the service id' },
  { from: 'sending', to: 'pending', when: 'transient failure (attempts + 1, backoff)' },
  { from: 'sending', to: 'unknown', when: 'outcome unknown; every sending row at start-up' },
  { from: 'unknown', to: 'sending', when: 'claimed for reconciliation' },
  { from: 'sending', to: 'failed', when: 'terminal failure' },
  { from: 'pending', to: 'failed', when: 'audio that cannot be encoded, found before any request' },
  { from: 'failed', to: 'pending', when: 'operator queue retry' },
  { from: 'pending', to: 'dropped', when: 'operator queue drop; species gate expired; recording without audio retired; audio withheld (privacy.audio never)' },
  { from: 'failed', to: 'dropped', when: 'operator queue drop; audio withheld (privacy.audio never)' },
  { from: 'uploaded', to: 'pending', when: 'the delivery audit: acknowledged, then missing at the service (once)' },
];

/** The states an item may be in to move to `to`, in table order. */
export function allowedFrom(to: ItemState): ItemState[] {
  const froms: ItemState[] = [];
  for (const t of TRANSITIONS) {
    if (t.to === to && t.from !== 'new' && !froms.includes(t.from)) froms.push(t.from);
  }
  return froms;
}

/** A SQL expression as a patch value (e.g. `attempts + 1`); only built inside the queue. */
export class SqlExpr {
  constructor(readonly sql: string) {}
}

/** Columns a transition may set besides `state` and `updated_at`. */
export interface TransitionPatch {
  attempts?: number | SqlExpr;
  nextAttemptAt?: number;
  lastError?: string | null;
  lastErrorCode?: string | null;
  remoteId?: number | null;
  holdReason?: string | null;
  reconcile?: boolean | SqlExpr;
  /** Recordings only. */
  spoolPath?: string | null;
  audioFormat?: 'wav' | 'flac' | null;
  filesize?: number | null;
  durationS?: number | null;
  sampleRate?: number | null;
  /** Recordings only: the bytes of the FLAC sent (the delivery audit's filesize). */
  sentBytes?: number | null;
  /** The delivery audit re-queued the item (it does so once). */
  auditRequeued?: boolean;
}

const PATCH_COLUMNS: Record<keyof TransitionPatch, string> = {
  attempts: 'attempts',
  nextAttemptAt: 'next_attempt_at',
  lastError: 'last_error',
  lastErrorCode: 'last_error_code',
  remoteId: 'remote_id',
  holdReason: 'hold_reason',
  reconcile: 'reconcile',
  spoolPath: 'spool_path',
  audioFormat: 'audio_format',
  filesize: 'filesize',
  durationS: 'duration_s',
  sampleRate: 'sample_rate',
  sentBytes: 'sent_bytes',
  auditRequeued: 'audit_requeued',
};

const RECORDING_ONLY = new Set<keyof TransitionPatch>(['spoolPath', 'audioFormat', 'filesize', 'durationS', 'sampleRate', 'sentBytes']);
/** The patch keys that change a recording's spool file (the kept total of the waiting ones, waiting-spool.ts). */
const SPOOL_COLUMNS: readonly (keyof TransitionPatch)[] = ['spoolPath', 'filesize'];
type SpoolRow = { spool_path: string | null; filesize: number | null };

/** The end states: an item in one no longer waits (`waiting = 0`, out of the claim indexes). */
const SETTLED: readonly ItemState[] = ['uploaded', 'failed', 'dropped'];
/** The others: `waiting = 1`, in the claim (`*_due`) indexes. */
export const WAITING_STATES: readonly ItemState[] = ['pending', 'sending', 'unknown'];

export const INCREMENT_ATTEMPTS = new SqlExpr('attempts + 1');

export interface TransitionWhere {
  /** Restrict the allowed `from` states further (e.g. a retry moves only `sending`, not `failed`, back to pending). */
  from?: readonly ItemState[];
  /**
   * SQL giving the ids to move (a SELECT, or a parameter): the rows are then found by
   * rowid, never by scanning the state's index range. Claims put their order and limit here.
   */
  ids?: string;
  /** A SQL condition over the item's table (named parameters from `params`; do not use the `t_`/`p_` prefixes). */
  where?: string;
  params?: Record<string, unknown>;
  patch?: TransitionPatch;
  /** Epoch ms written to `updated_at`; default now. */
  now?: number;
}

/**
 * The batch form: moves every item matching `ids`/`where` whose state may move to
 * `to`, in one UPDATE, and returns the moved items. The kept counts per state move
 * in the same transaction.
 */
export function transitionWhere<K extends ItemKind>(q: Queue, kind: K, to: ItemState, options: TransitionWhere = {}): ItemOf<K>[] {
  return moveWhere(q, kind, to, options, true).map((row) => toItem(kind, row));
}

/** What the UPDATE returns when the caller wants no item back: what the kept counts need. */
const MOVED_COLUMNS: Record<ItemKind, string> = {
  recording: 'id, prev_state, state, spool_path, filesize',
  detection: 'id, prev_state, state',
};

/**
 * One shape of transition (kind, target, states, selection, patched columns): its SQL is
 * built once per queue, so a hot path (a claim, an outcome per item) does not rebuild the
 * text, check the states again, or hash a new string to find its prepared statement.
 */
interface Shape {
  /** The UPDATE's text, looked up through `q.stmt` (the same string each call: its hash is kept, the lookup is cheap). */
  update: string;
  spoolBefore: string | null;
  /** Patch keys bound as parameters, with their parameter names. */
  bound: [keyof TransitionPatch, string][];
  leaves: boolean;
  returns: boolean;
}

const shapes = new WeakMap<Queue, Map<string, Shape>>();

function shapeKey(kind: ItemKind, to: ItemState, options: TransitionWhere, full: boolean): string {
  let key = `${kind}|${to}|${options.from?.join(',') ?? '*'}|${options.ids ?? ''}|${options.where ?? ''}|${full ? '*' : '-'}`;
  const patch = options.patch;
  if (patch) {
    for (const name in patch) {
      const value = patch[name as keyof TransitionPatch];
      if (value === undefined) continue;
      key += value instanceof SqlExpr ? `|${name}=${value.sql}` : `|${name}`;
    }
  }
  return key;
}

function buildShape(q: Queue, kind: ItemKind, to: ItemState, options: TransitionWhere, full: boolean): Shape {
  const froms = fromStates(to, options.from);
  // Right-hand sides see the row before the UPDATE: prev_state gets the state being left.
  const sets = ['prev_state = state', `state = '${to}'`, 'updated_at = @t_now'];
  const bound: [keyof TransitionPatch, string][] = [];
  for (const [key, value] of Object.entries(options.patch ?? {}) as [keyof TransitionPatch, unknown][]) {
    if (value === undefined) continue;
    if (kind !== 'recording' && RECORDING_ONLY.has(key)) {
      throw new QueueError('ERR_QUEUE_INVALID', `${key} is a recording field; detections have no ${PATCH_COLUMNS[key]}`);
    }
    const column = PATCH_COLUMNS[key];
    if (value instanceof SqlExpr) {
      sets.push(`${column} = ${value.sql}`);
    } else {
      sets.push(`${column} = @p_${column}`);
      bound.push([key, `p_${column}`]);
    }
  }
  // `waiting` (the claim indexes' condition) is set only on entering or leaving an end
  // state: an outcome deletes the item's entry instead of moving it into a settled range.
  const leaves = SETTLED.includes(to);
  const returns = !leaves && froms.some((s) => SETTLED.includes(s));
  if (leaves) sets.push('waiting = 0');
  else if (returns) sets.push('waiting = 1');
  const states = froms.map((s) => `'${s}'`).join(', ');
  // With ids, `+state` keeps the planner on the rowid: otherwise it prefers the state
  // index and walks every item in the state to test membership in the id list.
  // Without ids, the `*_due` index is read when every state it moves from still waits (the index holds those only).
  const select = options.ids
    ? `id IN (${options.ids}) AND +state IN (${states})`
    : `${froms.every((s) => !SETTLED.includes(s)) ? 'waiting = 1 AND ' : ''}state IN (${states})`;
  const where = `${select}${options.where ? ` AND (${options.where})` : ''}`;
  const update = `UPDATE ${TABLE[kind]} SET ${sets.join(', ')} WHERE ${where} RETURNING ${full ? '*' : MOVED_COLUMNS[kind]}`;
  // A patch of a recording's spool file: the kept total of the waiting ones needs the file it had.
  const spoolBefore =
    kind === 'recording' && SPOOL_COLUMNS.some((key) => options.patch?.[key] !== undefined)
      ? `SELECT spool_path, filesize FROM recordings WHERE waiting = 1 AND ${where}`
      : null;
  q.stmt(update); // prepared now: a mistake in the SQL throws before anything is cached
  return { update, spoolBefore, bound, leaves, returns };
}

/** {@link transitionWhere}'s work: the moved rows, whole (`full`) or only the columns the kept counts need. */
function moveWhere(q: Queue, kind: ItemKind, to: ItemState, options: TransitionWhere, full: boolean): ItemRow[] {
  let cache = shapes.get(q);
  if (!cache) shapes.set(q, (cache = new Map<string, Shape>()));
  const key = shapeKey(kind, to, options, full);
  let shape = cache.get(key);
  if (!shape) cache.set(key, (shape = buildShape(q, kind, to, options, full)));
  const params: Record<string, unknown> = { ...options.params, t_now: options.now ?? Date.now() };
  for (const [name, param] of shape.bound) {
    const value = options.patch![name];
    params[param] = typeof value === 'boolean' ? Number(value) : value;
  }
  const { leaves, returns } = shape;
  const statement = q.stmt(shape.update);
  const spoolBefore = shape.spoolBefore === null ? null : q.stmt(shape.spoolBefore);
  return q.write(() => {
    const before = spoolBefore?.all(params) as SpoolRow[] | undefined;
    const rows = statement.all(params) as ItemRow[];
    if (rows.length > 0) {
      const deltas: StateDeltas = { [to]: rows.length };
      for (const row of rows) deltas[row.prev_state!] = (deltas[row.prev_state!] ?? 0) - 1;
      addToStateCounts(q, kind, deltas, kind === 'recording' ? waitingSpoolChange(rows as (ItemRow & SpoolRow)[], before) : undefined);
      // The kept first waiting item (first-waiting.ts) moves only where waiting does.
      if (leaves) settledFirstWaiting(q, kind, rows.map((row) => row.id));
      else if (returns) requeuedFirstWaiting(q, kind, rows.map((row) => row.id));
    }
    return rows;
  });
}

/** The waiting recordings' spool files (waiting-spool.ts): what waits after, less what waited before (`before`: read ahead of a spool patch). */
function waitingSpoolChange(rows: readonly (ItemRow & SpoolRow)[], before: readonly SpoolRow[] | undefined): SpoolTotal {
  const after = spoolOf(rows.filter((row) => WAITING_STATES.includes(row.state)));
  const was = spoolOf(before ?? rows.filter((row) => WAITING_STATES.includes(row.prev_state!)));
  return { files: after.files - was.files, bytes: after.bytes - was.bytes };
}

export interface TransitionOptions {
  from?: readonly ItemState[];
  now?: number;
  /** An extra condition the item must meet, and how to say so when it does not. */
  require?: { where: string; params?: Record<string, unknown>; description: string };
}

/**
 * Moves one item to `to`. Throws {@link QueueTransitionError} (`ERR_QUEUE_TRANSITION`)
 * when its current state may not move there, or `ERR_QUEUE_NOT_FOUND` when there
 * is no such item.
 */
export function transition<K extends ItemKind>(
  q: Queue,
  kind: K,
  id: number,
  to: ItemState,
  patch: TransitionPatch = {},
  options: TransitionOptions = {},
): ItemOf<K> {
  return toItem(kind, moveOne(q, kind, id, to, patch, options, true));
}

/** {@link transition} for a caller that needs no item back: the same checks and errors, no row read back whole. */
export function moveItem(q: Queue, kind: ItemKind, id: number, to: ItemState, patch: TransitionPatch = {}, options: TransitionOptions = {}): void {
  moveOne(q, kind, id, to, patch, options, false);
}

function moveOne(q: Queue, kind: ItemKind, id: number, to: ItemState, patch: TransitionPatch, options: TransitionOptions, full: boolean): ItemRow {
  const [moved] = moveWhere(
    q,
    kind,
    to,
    {
      from: options.from,
      ids: '@t_id',
      where: options.require?.where,
      params: { ...options.require?.params, t_id: id },
      patch,
      now: options.now,
    },
    full,
  );
  if (moved) return moved;
  const current = q.stmt(`SELECT state FROM ${TABLE[kind]} WHERE id = ?`).get(id) as { state: ItemState } | undefined;
  const item = formatItemId(kind, id);
  if (!current) throw new QueueError('ERR_QUEUE_NOT_FOUND', `no ${kind} ${item} in the queue ${q.path}`);
  const froms = fromStates(to, options.from);
  const detail = froms.includes(current.state) ? options.require?.description : undefined;
  throw new QueueTransitionError(item, current.state, to, froms, detail);
}

function fromStates(to: ItemState, restrict: readonly ItemState[] | undefined): ItemState[] {
  const allowed = allowedFrom(to);
  if (!restrict) return allowed;
  const bad = restrict.filter((s) => !allowed.includes(s));
  if (bad.length > 0) {
    throw new QueueError('ERR_QUEUE_TRANSITION', `the state machine has no transition from ${bad.join(', ')} to ${to}`);
  }
  return restrict.slice();
}
