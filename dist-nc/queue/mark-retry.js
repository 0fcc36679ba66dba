import { TABLE } from './rows.js';
import { INCREMENT_ATTEMPTS, transition } from './state.js';
export function markRetry(q, kind, id, outcome) {
    return q.write(() => {
        const row = q.stmt(`SELECT reconcile FROM ${TABLE[kind]} WHERE id = ?`).get(id);
        const to = row?.reconcile === 1 ? 'unknown' : 'pending';
        return transition(q, kind, id, to, { attempts: INCREMENT_ATTEMPTS, lastError: outcome.error, lastErrorCode: outcome.code, nextAttemptAt: outcome.nextAttemptAt }, { from: ['sending'], now: outcome.now });
    });
}
