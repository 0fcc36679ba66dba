import { recountFirstWaiting } from './first-waiting.js';
import { recountWaitingSpool } from './waiting-spool.js';
import { TABLE } from './rows.js';
import { ITEM_STATES } from './types.js';
const keptIn = (state) => (state === 'sending' ? 'pending' : state);
export function addToStateCounts(q, kind, deltas, spool) {
    const folded = {};
    for (const [state, delta] of Object.entries(deltas)) {
        folded[keptIn(state)] = (folded[keptIn(state)] ?? 0) + delta;
    }
    const withSpool = spool != null && (spool.files !== 0 || spool.bytes !== 0);
    if (withSpool) {
        q.stmt(`UPDATE state_counts SET n = n + ?, spool_files = spool_files + ?, spool_bytes = spool_bytes + ? WHERE kind = ? AND state = 'pending'`).run(folded.pending ?? 0, spool.files, spool.bytes, kind);
    }
    const update = q.stmt('UPDATE state_counts SET n = n + ? WHERE kind = ? AND state = ?');
    for (const [state, delta] of Object.entries(folded)) {
        if (delta && !(withSpool && state === 'pending'))
            update.run(delta, kind, state);
    }
}
export function readStateCounts(q, kind) {
    const counts = emptyCounts();
    for (const row of q.stmt('SELECT state, n FROM state_counts WHERE kind = ?').all(kind)) {
        counts[row.state] = row.n;
    }
    const sending = q.stmt(`SELECT COUNT(*) FROM ${TABLE[kind]} WHERE waiting = 1 AND state = 'sending'`).pluck().get();
    counts.pending += counts.sending - sending;
    counts.sending = sending;
    return counts;
}
export function recountStates(q) {
    return q.write(() => {
        let drifted = false;
        for (const kind of ['recording', 'detection']) {
            const counted = countTable(q, kind);
            const actual = { ...counted, pending: counted.pending + counted.sending, sending: 0 };
            const kept = emptyCounts();
            for (const row of q.stmt('SELECT state, n FROM state_counts WHERE kind = ?').all(kind)) {
                kept[row.state] = row.n;
            }
            for (const state of ITEM_STATES) {
                if (actual[state] === kept[state])
                    continue;
                drifted = true;
                q.stmt('UPDATE state_counts SET n = ? WHERE kind = ? AND state = ?').run(actual[state], kind, state);
            }
            if (recountFirstWaiting(q, kind))
                drifted = true;
        }
        if (recountWaitingSpool(q))
            drifted = true;
        return drifted;
    });
}
export function countTable(q, kind) {
    const counts = emptyCounts();
    const rows = q.stmt(`SELECT state, COUNT(*) AS n FROM ${TABLE[kind]} GROUP BY state`).all();
    for (const row of rows)
        counts[row.state] = row.n;
    return counts;
}
function emptyCounts() {
    return Object.fromEntries(ITEM_STATES.map((s) => [s, 0]));
}
