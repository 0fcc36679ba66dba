import { TABLE } from './rows.js';
import { HELD } from './hold.js';
export function holdCounts(q) {
    const out = { recording: {}, detection: {} };
    for (const kind of ['recording', 'detection']) {
        const rows = q.stmt(`SELECT hold_reason AS reason, count(*) AS n FROM ${TABLE[kind]} WHERE ${HELD} GROUP BY hold_reason`).all();
        for (const row of rows)
            out[kind][row.reason] = row.n;
    }
    return out;
}
export function sourceHoldReasons(q, sourceKey) {
    const rows = q
        .stmt(`SELECT hold_reason AS reason FROM recordings WHERE source_key = @key AND ${HELD} ` +
        `UNION SELECT hold_reason FROM detections WHERE dedupe_key > @key || '|' AND dedupe_key < @key || '}' AND ${HELD} ORDER BY 1`)
        .all({ key: sourceKey });
    return rows.map((r) => r.reason);
}
