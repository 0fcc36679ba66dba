import type { Queue } from './db.js';
import { TABLE, toItem, type ItemRow } from './rows.js';
import type { ItemKind, ItemOf } from './types.js';

/** One item with all its fields, or undefined. */
export function getItem<K extends ItemKind>(q: Queue, kind: K, id: number): ItemOf<K> | undefined {
  const row = q.stmt(`SELECT * FROM ${TABLE[kind]} WHERE id = ?`).get(id) as ItemRow | undefined;
  return row ? toItem(kind, row) : undefined;
}

/** Items by id, in one statement (missing ids are absent from the map). */
export function getItems<K extends ItemKind>(q: Queue, kind: K, ids: readonly number[]): Map<number, ItemOf<K>> {
  const rows = q.stmt(`SELECT * FROM ${TABLE[kind]} WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as ItemRow[];
  return new Map(rows.map((row) => [row.id, toItem(kind, row)]));
}
