import { checkLimit, direction, limitSql } from './claim.js';
const toWav = (r) => ({ id: r.id, spoolPath: r.spool_path, filesize: r.filesize, reconcile: r.state === 'unknown', createdAt: r.created_at });
export function wavRecordingsDue(q, options) {
    const limit = limitSql(options.limit);
    const dir = direction(options.order);
    const branch = (state) => `SELECT id, state, spool_path, filesize, created_at, next_attempt_at FROM recordings WHERE waiting = 1 AND state = '${state}' AND audio_stage = 1 ` +
        `AND next_attempt_at <= @now AND hold_reason IS NULL AND filesize <= @max ` +
        `AND id NOT IN (SELECT value FROM json_each(@exclude)) ORDER BY next_attempt_at ${dir}, id ${dir} ${limit}`;
    const sql = `SELECT * FROM (SELECT * FROM (${branch('unknown')}) UNION ALL SELECT * FROM (${branch('pending')})) ` +
        `ORDER BY state = 'unknown' DESC, next_attempt_at ${dir}, id ${dir} ${limit}`;
    const rows = q.stmt(sql).all({
        now: options.now ?? Date.now(),
        max: options.maxBytes,
        exclude: JSON.stringify(options.exclude ?? []),
    });
    return rows.map(toWav);
}
export function compactionCandidates(q, options) {
    checkLimit(options.limit);
    const branch = (state) => `SELECT id, state, spool_path, filesize, created_at FROM recordings WHERE waiting = 1 AND state = '${state}' AND audio_stage = 1 ` +
        `AND +id > @after AND (filesize IS NULL OR filesize > @max OR created_at <= @before)`;
    const rows = q
        .stmt(`SELECT * FROM (${branch('pending')} UNION ALL ${branch('unknown')}) ORDER BY id LIMIT @limit`)
        .all({ after: options.afterId, max: options.maxInMemoryBytes, before: options.queuedBefore ?? -1, limit: options.limit });
    return rows.map(toWav);
}
