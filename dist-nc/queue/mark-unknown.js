import { INCREMENT_ATTEMPTS, transition } from './state.js';
export function markUnknown(q, kind, id, outcome) {
    const now = outcome.now ?? Date.now();
    return transition(q, kind, id, 'unknown', { attempts: INCREMENT_ATTEMPTS, lastError: outcome.error, lastErrorCode: outcome.code, nextAttemptAt: outcome.nextAttemptAt ?? now }, { from: ['sending'], now });
}
