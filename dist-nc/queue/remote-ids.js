import { TABLE } from './rows.js';
export function isRemoteIdTaken(q, kind, remoteId) {
    return q.stmt(`SELECT 1 FROM ${TABLE[kind]} WHERE remote_id = ? LIMIT 1`).get(remoteId) !== undefined;
}
