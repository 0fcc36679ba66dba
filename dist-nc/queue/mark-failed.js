import { INCREMENT_ATTEMPTS, transition, transitionWhere } from './state.js';
export function markFailed(q, kind, id, outcome) {
    return transition(q, kind, id, 'failed', { attempts: INCREMENT_ATTEMPTS, lastError: outcome.error, lastErrorCode: outcome.code }, { from: ['sending'], now: outcome.now });
}
export function markUnencodable(q, id, spoolPath, outcome) {
    return (transitionWhere(q, 'recording', 'failed', {
        from: ['pending'],
        ids: '@id',
        where: 'spool_path = @spool_path',
        params: { id, spool_path: spoolPath },
        patch: { attempts: INCREMENT_ATTEMPTS, lastError: outcome.error, lastErrorCode: outcome.code },
        now: outcome.now,
    }).length === 1);
}
