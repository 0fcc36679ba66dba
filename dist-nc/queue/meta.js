import { QueueError } from './errors.js';
export function getMeta(q, key) {
    const row = q.stmt('SELECT value FROM meta WHERE key = ?').get(key);
    if (!row)
        return undefined;
    try {
        return JSON.parse(row.value);
    }
    catch (err) {
        throw new QueueError('ERR_QUEUE', `meta key "${key}" in queue database ${q.path} does not hold JSON`, { cause: err });
    }
}
export function setMeta(q, key, value, options = {}) {
    const json = JSON.stringify(value);
    if (json === undefined)
        throw new QueueError('ERR_QUEUE_INVALID', `meta key "${key}": value is not JSON (${typeof value})`);
    return (q
        .stmt('INSERT INTO meta (key, value, updated_at) VALUES (?, ?, ?) ' +
        'ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at WHERE meta.value IS NOT excluded.value')
        .run(key, json, options.now ?? Date.now()).changes === 1);
}
export function deleteMeta(q, key) {
    return q.stmt('DELETE FROM meta WHERE key = ?').run(key).changes === 1;
}
export function metaLastWrittenAt(q) {
    return q.stmt('SELECT MAX(updated_at) FROM meta').pluck().get() ?? null;
}
