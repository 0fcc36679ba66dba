export function isFileDone(q, file, size, mtimeMs) {
    const row = q.stmt(`SELECT size, mtime_ms FROM ingested_files WHERE path = ?`).get(file);
    return row !== undefined && row.size === size && Math.trunc(row.mtime_ms) === Math.trunc(mtimeMs);
}
export function markFileDone(q, file, size, mtimeMs, outcome, detail = null, now = Date.now()) {
    q.stmt(`INSERT INTO ingested_files (path, size, mtime_ms, outcome, detail, at) VALUES (?, ?, ?, ?, ?, ?) ` +
        `ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, ` +
        `outcome = excluded.outcome, detail = excluded.detail, at = excluded.at`).run(file, size, Math.trunc(mtimeMs), outcome, detail, now);
}
export function pruneIngestedFiles(q, exists, options = {}) {
    const limit = options.limit ?? 1_000;
    const rows = q.stmt(`SELECT path FROM ingested_files WHERE path > ? ORDER BY path LIMIT ?`).all(options.after ?? '', limit);
    const gone = rows.filter((r) => !exists(r.path)).map((r) => r.path);
    if (gone.length > 0) {
        const del = q.stmt(`DELETE FROM ingested_files WHERE path = ?`);
        q.write(() => {
            for (const file of gone)
                del.run(file);
        });
    }
    return { pruned: gone.length, next: rows.length < limit ? null : rows[rows.length - 1].path };
}
export function filesInError(q, limit = 3) {
    const where = `WHERE outcome = 'error'`;
    const count = q.stmt(`SELECT COUNT(*) FROM ingested_files INDEXED BY ingested_files_errors ${where}`).pluck().get();
    const latest = q
        .stmt(`SELECT path, detail, at FROM ingested_files INDEXED BY ingested_files_errors ${where} ORDER BY at DESC LIMIT ?`)
        .all(limit);
    return { count, latest };
}
