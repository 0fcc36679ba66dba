import { TABLE } from './rows.js';
const WINDOW = 1_000;
function keptId(q, kind) {
    return q.stmt(`SELECT first_waiting_id FROM state_counts WHERE kind = ? AND state = 'pending'`).pluck().get(kind);
}
function keep(q, kind, id) {
    q.stmt(`UPDATE state_counts SET first_waiting_id = ? WHERE kind = ? AND state = 'pending'`).run(id, kind);
}
export function settledFirstWaiting(q, kind, ids) {
    const kept = keptId(q, kind);
    if (!ids.includes(kept))
        return;
    const table = TABLE[kind];
    const window = q
        .stmt(`SELECT MIN(CASE WHEN waiting = 1 THEN id END) AS next, COUNT(*) AS n, MAX(id) AS last ` +
        `FROM (SELECT id, waiting FROM ${table} NOT INDEXED WHERE id > ? ORDER BY id LIMIT ${WINDOW})`)
        .get(kept);
    let next = window.next;
    if (next == null && window.n === WINDOW) {
        next = q.stmt(`SELECT MIN(id) FROM ${table} INDEXED BY ${table}_due WHERE waiting = 1`).pluck().get();
    }
    if (next == null)
        next = q.stmt(`SELECT MAX(id) FROM ${table}`).pluck().get() + 1;
    keep(q, kind, next);
}
export function requeuedFirstWaiting(q, kind, ids) {
    const oldest = Math.min(...ids);
    if (oldest < keptId(q, kind))
        keep(q, kind, oldest);
}
export function firstWaitingCreatedAt(q, kind) {
    const table = TABLE[kind];
    const row = q
        .stmt(`SELECT created_at FROM ${table} NOT INDEXED WHERE id >= (` +
        `SELECT first_waiting_id FROM state_counts WHERE kind = ? AND state = 'pending') AND waiting = 1 ORDER BY id LIMIT 1`)
        .get(kind);
    return row?.created_at ?? null;
}
export function countFirstWaiting(q, kind) {
    const table = TABLE[kind];
    return q
        .stmt(`SELECT COALESCE((SELECT MIN(id) FROM ${table} WHERE waiting = 1), (SELECT COALESCE(MAX(id), 0) + 1 FROM ${table}))`)
        .pluck()
        .get();
}
export function recountFirstWaiting(q, kind) {
    const actual = countFirstWaiting(q, kind);
    if (actual === keptId(q, kind))
        return false;
    keep(q, kind, actual);
    return true;
}
