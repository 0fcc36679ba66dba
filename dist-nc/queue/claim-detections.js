import { CLAIM_FROM, claimIds, direction, limitSql, sortClaimed } from './claim.js';
import { SqlExpr, transitionWhere } from './state.js';
export const DEFAULT_NO_AUDIO_AFTER_MS = 10 * 60_000;
export function claimDetections(q, options) {
    const now = options.now ?? Date.now();
    const noAudioBefore = now - (options.noAudioAfterMs ?? DEFAULT_NO_AUDIO_AFTER_MS);
    const ids = claimSql(options);
    return q.write(() => {
        const claimed = transitionWhere(q, 'detection', 'sending', {
            ids,
            params: { now, no_audio_before: noAudioBefore },
            patch: { reconcile: new SqlExpr(`state = 'unknown'`) },
            now,
        });
        const recordingIds = [...new Set(claimed.flatMap((d) => (d.recordingId == null ? [] : [d.recordingId])))];
        const recordings = new Map();
        if (recordingIds.length > 0) {
            const rows = q
                .stmt('SELECT id, state, remote_id, timestamp FROM recordings WHERE id IN (SELECT value FROM json_each(?))')
                .all(JSON.stringify(recordingIds));
            for (const row of rows)
                recordings.set(row.id, row);
        }
        const result = claimed.map((d) => {
            const r = d.recordingId == null ? undefined : recordings.get(d.recordingId);
            return {
                ...d,
                soundscapeRemoteId: r?.state === 'uploaded' ? r.remote_id : null,
                recordingTimestamp: r?.timestamp ?? null,
            };
        });
        return sortClaimed(result, options.order);
    });
}
const claimSqls = new Map();
function claimSql(options) {
    const key = `${options.order}|${options.limit}|${Boolean(options.audioHeld)}|${Boolean(options.audioWithheld)}`;
    let sql = claimSqls.get(key);
    if (sql !== undefined)
        return sql;
    const limit = limitSql(options.limit);
    const dir = direction(options.order);
    const branch = (state, wait) => `SELECT id, state, next_attempt_at FROM detections WHERE waiting = 1 AND state = '${state}' AND recording_wait = ${wait} ` +
        `AND next_attempt_at <= @now AND hold_reason IS NULL${wait !== 0 && !options.audioWithheld ? ' AND created_at <= @no_audio_before' : ''} ` +
        `ORDER BY next_attempt_at ${dir}, id ${dir} ${limit}`;
    const waits = options.audioHeld || options.audioWithheld ? [0, 2, 1] : [0, 2];
    sql = claimIds(CLAIM_FROM.flatMap((state) => waits.map((wait) => branch(state, wait))), dir, options.limit);
    claimSqls.set(key, sql);
    return sql;
}
