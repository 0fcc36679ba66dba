import { CLAIM_FROM, claimIds, direction, limitSql, sortClaimed } from './claim.js';
import { SqlExpr, transitionWhere } from './state.js';
export function claimRecordings(q, options) {
    const now = options.now ?? Date.now();
    const ids = claimSql(options);
    const claimed = transitionWhere(q, 'recording', 'sending', {
        ids,
        params: { now },
        patch: { reconcile: new SqlExpr(`state = 'unknown'`) },
        now,
    });
    return sortClaimed(claimed, options.order);
}
const claimSqls = new Map();
function claimSql(options) {
    const key = `${options.order}|${options.limit}`;
    let sql = claimSqls.get(key);
    if (sql === undefined) {
        const limit = limitSql(options.limit);
        const dir = direction(options.order);
        sql = claimIds(CLAIM_FROM.map((state) => `SELECT id, state, next_attempt_at FROM recordings WHERE waiting = 1 AND state = '${state}' AND audio_stage = 2 ` +
            `AND next_attempt_at <= @now AND hold_reason IS NULL ORDER BY next_attempt_at ${dir}, id ${dir} ${limit}`), dir, options.limit);
        claimSqls.set(key, sql);
    }
    return sql;
}
export function claimEncoded(q, options) {
    if (options.items.length === 0)
        return [];
    const now = options.now ?? Date.now();
    return transitionWhere(q, 'recording', 'sending', {
        ids: `SELECT json_extract(value, '$[0]') FROM json_each(@pairs)`,
        where: `next_attempt_at <= @now AND hold_reason IS NULL AND (id, spool_path) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(@pairs))`,
        params: { now, pairs: JSON.stringify(options.items.map((i) => [i.id, i.spoolPath])) },
        patch: { reconcile: new SqlExpr(`state = 'unknown'`) },
        now,
    });
}
