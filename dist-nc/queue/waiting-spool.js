const ROW = `kind = 'recording' AND state = 'pending'`;
export function readWaitingSpool(q) {
    return q.stmt(`SELECT spool_files AS files, spool_bytes AS bytes FROM state_counts WHERE ${ROW}`).get();
}
export function spoolOf(rows) {
    const total = { files: 0, bytes: 0 };
    for (const row of rows) {
        if (row.spool_path == null)
            continue;
        total.files += 1;
        total.bytes += row.filesize ?? 0;
    }
    return total;
}
export function countWaitingSpool(q) {
    return q
        .stmt(`SELECT COUNT(*) AS files, COALESCE(SUM(filesize), 0) AS bytes FROM recordings WHERE waiting = 1 AND spool_path IS NOT NULL`)
        .get();
}
export function recountWaitingSpool(q) {
    const actual = countWaitingSpool(q);
    const kept = readWaitingSpool(q);
    if (actual.files === kept.files && actual.bytes === kept.bytes)
        return false;
    q.stmt(`UPDATE state_counts SET spool_files = ?, spool_bytes = ? WHERE ${ROW}`).run(actual.files, actual.bytes);
    return true;
}
