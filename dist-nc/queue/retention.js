import { QueueError } from './errors.js';
import { readWaitingSpool } from './waiting-spool.js';
export const SETTLED_SPOOL = `state IN ('uploaded', 'dropped', 'failed')`;
export const RETIRED = `${SETTLED_SPOOL} AND state != 'failed'`;
export function spoolFilesToDelete(q, options) {
    if (!(options.retentionMs >= 0)) {
        throw new QueueError('ERR_QUEUE_INVALID', `retentionMs must be >= 0, got ${options.retentionMs}`);
    }
    const before = (options.now ?? Date.now()) - options.retentionMs;
    const rows = q
        .stmt(`SELECT id, spool_path, filesize FROM recordings INDEXED BY recordings_spool ` +
        `WHERE spool_path IS NOT NULL AND ${RETIRED} AND updated_at <= ? ORDER BY updated_at, id LIMIT ?`)
        .all(before, options.limit);
    return rows.map((r) => ({ recordingId: r.id, spoolPath: r.spool_path, filesize: r.filesize }));
}
export function clearSpoolPath(q, recordingId) {
    return q.stmt(`UPDATE recordings SET spool_path = NULL WHERE id = ? AND ${RETIRED} AND spool_path IS NOT NULL`).run(recordingId).changes === 1;
}
export function spoolUsage(q) {
    return q.read(() => {
        const retired = q
            .stmt(`SELECT COUNT(*) AS files, COALESCE(SUM(filesize), 0) AS bytes FROM recordings INDEXED BY recordings_spool WHERE spool_path IS NOT NULL AND ${SETTLED_SPOOL}`)
            .get();
        const waiting = readWaitingSpool(q);
        return { files: retired.files + waiting.files, bytes: retired.bytes + waiting.bytes };
    });
}
