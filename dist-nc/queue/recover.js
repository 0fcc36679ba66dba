import { transitionWhere } from './state.js';
export const INTERRUPTED_ERROR = 'the agent stopped while sending; the outcome is unknown';
export const INTERRUPTED_CODE = 'ERR_OUTCOME_UNKNOWN';
export function recoverInFlight(q, options = {}) {
    const now = options.now ?? Date.now();
    const patch = { lastError: INTERRUPTED_ERROR, lastErrorCode: INTERRUPTED_CODE };
    return q.write(() => {
        const recordings = transitionWhere(q, 'recording', 'unknown', { from: ['sending'], patch, now }).length;
        const detections = transitionWhere(q, 'detection', 'unknown', { from: ['sending'], patch, now }).length;
        return { recordings, detections };
    });
}
