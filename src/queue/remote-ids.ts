import type { Queue } from './db.js';
import { TABLE } from './rows.js';
import type { ItemKind } from './types.js';

/**
 * Whether an item of the queue already holds this service id. Reconciliation never
 * adopts an id twice: two local items matching one remote item means only one of
 * them was stored there.
 */
export function isRemoteIdTaken(q: Queue, kind: ItemKind, remoteId: number): boolean {
  return q.stmt(`SELECT 1 FROM ${TABLE[kind]} WHERE remote_id = ? LIMIT 1`).get(remoteId) !== undefined;
}
