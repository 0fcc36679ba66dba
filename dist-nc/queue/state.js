import { QueueError, QueueTransitionError } from './errors.js';
import { requeuedFirstWaiting, settledFirstWaiting } from './first-waiting.js';
import { formatItemId } from './item-id.js';
import { TABLE, toItem } from './rows.js';
import { addToStateCounts } from './state-counts.js';
import { spoolOf } from './waiting-spool.js';
export const TRANSITIONS = [
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
];
export function allowedFrom(to) {
    const froms = [];
    for (const t of TRANSITIONS) {
        if (t.to === to && t.from !== 'new' && !froms.includes(t.from))
            froms.push(t.from);
    }
    return froms;
}
export function canTransition(from, to) {
    return TRANSITIONS.some((t) => t.from === from && t.to === to);
}
export class SqlExpr {
    sql;
    constructor(sql) {
        this.sql = sql;
    }
}
const PATCH_COLUMNS = {
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
};
const RECORDING_ONLY = new Set(['spoolPath', 'audioFormat', 'filesize', 'durationS', 'sampleRate']);
const SPOOL_COLUMNS = ['spoolPath', 'filesize'];
const SETTLED = ['uploaded', 'failed', 'dropped'];
export const WAITING_STATES = ['pending', 'sending', 'unknown'];
export const INCREMENT_ATTEMPTS = new SqlExpr('attempts + 1');
export function transitionWhere(q, kind, to, options = {}) {
    return moveWhere(q, kind, to, options, true).map((row) => toItem(kind, row));
}
const MOVED_COLUMNS = {
    recording: 'id, prev_state, state, spool_path, filesize',
    detection: 'id, prev_state, state',
};
const shapes = new WeakMap();
function shapeKey(kind, to, options, full) {
    let key = `${kind}|${to}|${options.from?.join(',') ?? '*'}|${options.ids ?? ''}|${options.where ?? ''}|${full ? '*' : '-'}`;
    const patch = options.patch;
    if (patch) {
        for (const name in patch) {
            const value = patch[name];
            if (value === undefined)
                continue;
            key += value instanceof SqlExpr ? `|${name}=${value.sql}` : `|${name}`;
        }
    }
    return key;
}
function buildShape(q, kind, to, options, full) {
    const froms = fromStates(to, options.from);
    const sets = ['prev_state = state', `state = '${to}'`, 'updated_at = @t_now'];
    const bound = [];
    for (const [key, value] of Object.entries(options.patch ?? {})) {
        if (value === undefined)
            continue;
        if (kind !== 'recording' && RECORDING_ONLY.has(key)) {
            throw new QueueError('ERR_QUEUE_INVALID', `${key} is a recording field; detections have no ${PATCH_COLUMNS[key]}`);
        }
        const column = PATCH_COLUMNS[key];
        if (value instanceof SqlExpr) {
            sets.push(`${column} = ${value.sql}`);
        }
        else {
            sets.push(`${column} = @p_${column}`);
            bound.push([key, `p_${column}`]);
        }
    }
    const leaves = SETTLED.includes(to);
    const returns = !leaves && froms.some((s) => SETTLED.includes(s));
    if (leaves)
        sets.push('waiting = 0');
    else if (returns)
        sets.push('waiting = 1');
    const states = froms.map((s) => `'${s}'`).join(', ');
    const select = options.ids
        ? `id IN (${options.ids}) AND +state IN (${states})`
        : `${froms.every((s) => !SETTLED.includes(s)) ? 'waiting = 1 AND ' : ''}state IN (${states})`;
    const where = `${select}${options.where ? ` AND (${options.where})` : ''}`;
    const update = `UPDATE ${TABLE[kind]} SET ${sets.join(', ')} WHERE ${where} RETURNING ${full ? '*' : MOVED_COLUMNS[kind]}`;
    const spoolBefore = kind === 'recording' && SPOOL_COLUMNS.some((key) => options.patch?.[key] !== undefined)
        ? `SELECT spool_path, filesize FROM recordings WHERE waiting = 1 AND ${where}`
        : null;
    q.stmt(update);
    return { update, spoolBefore, bound, leaves, returns };
}
function moveWhere(q, kind, to, options, full) {
    let cache = shapes.get(q);
    if (!cache)
        shapes.set(q, (cache = new Map()));
    const key = shapeKey(kind, to, options, full);
    let shape = cache.get(key);
    if (!shape)
        cache.set(key, (shape = buildShape(q, kind, to, options, full)));
    const params = { ...options.params, t_now: options.now ?? Date.now() };
    for (const [name, param] of shape.bound) {
        const value = options.patch[name];
        params[param] = typeof value === 'boolean' ? Number(value) : value;
    }
    const { leaves, returns } = shape;
    const statement = q.stmt(shape.update);
    const spoolBefore = shape.spoolBefore === null ? null : q.stmt(shape.spoolBefore);
    return q.write(() => {
        const before = spoolBefore?.all(params);
        const rows = statement.all(params);
        if (rows.length > 0) {
            const deltas = { [to]: rows.length };
            for (const row of rows)
                deltas[row.prev_state] = (deltas[row.prev_state] ?? 0) - 1;
            addToStateCounts(q, kind, deltas, kind === 'recording' ? waitingSpoolChange(rows, before) : undefined);
            if (leaves)
                settledFirstWaiting(q, kind, rows.map((row) => row.id));
            else if (returns)
                requeuedFirstWaiting(q, kind, rows.map((row) => row.id));
        }
        return rows;
    });
}
function waitingSpoolChange(rows, before) {
    const after = spoolOf(rows.filter((row) => WAITING_STATES.includes(row.state)));
    const was = spoolOf(before ?? rows.filter((row) => WAITING_STATES.includes(row.prev_state)));
    return { files: after.files - was.files, bytes: after.bytes - was.bytes };
}
export function transition(q, kind, id, to, patch = {}, options = {}) {
    return toItem(kind, moveOne(q, kind, id, to, patch, options, true));
}
export function moveItem(q, kind, id, to, patch = {}, options = {}) {
    moveOne(q, kind, id, to, patch, options, false);
}
function moveOne(q, kind, id, to, patch, options, full) {
    const [moved] = moveWhere(q, kind, to, {
        from: options.from,
        ids: '@t_id',
        where: options.require?.where,
        params: { ...options.require?.params, t_id: id },
        patch,
        now: options.now,
    }, full);
    if (moved)
        return moved;
    const current = q.stmt(`SELECT state FROM ${TABLE[kind]} WHERE id = ?`).get(id);
    const item = formatItemId(kind, id);
    if (!current)
        throw new QueueError('ERR_QUEUE_NOT_FOUND', `no ${kind} ${item} in the queue ${q.path}`);
    const froms = fromStates(to, options.from);
    const detail = froms.includes(current.state) ? options.require?.description : undefined;
    throw new QueueTransitionError(item, current.state, to, froms, detail);
}
function fromStates(to, restrict) {
    const allowed = allowedFrom(to);
    if (!restrict)
        return allowed;
    const bad = restrict.filter((s) => !allowed.includes(s));
    if (bad.length > 0) {
        throw new QueueError('ERR_QUEUE_TRANSITION', `the state machine has no transition from ${bad.join(', ')} to ${to}`);
    }
    return restrict.slice();
}
