import { TABLE, toItem } from './rows.js';
export function getItem(q, kind, id) {
    const row = q.stmt(`SELECT * FROM ${TABLE[kind]} WHERE id = ?`).get(id);
    return row ? toItem(kind, row) : undefined;
}
export function getItems(q, kind, ids) {
    const rows = q.stmt(`SELECT * FROM ${TABLE[kind]} WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids));
    return new Map(rows.map((row) => [row.id, toItem(kind, row)]));
}
