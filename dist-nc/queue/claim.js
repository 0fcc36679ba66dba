import { QueueError } from './errors.js';
import { allowedFrom } from './state.js';
export const CLAIM_FROM = ['unknown', 'pending'];
{
    const table = allowedFrom('sending');
    if (table.length !== CLAIM_FROM.length || !CLAIM_FROM.every((s) => table.includes(s))) {
        throw new Error(`claim states [${CLAIM_FROM.join(', ')}] differ from the state machine's [${table.join(', ')}]`);
    }
}
export function direction(order) {
    if (order === 'oldest')
        return 'ASC';
    if (order === 'newest')
        return 'DESC';
    throw new QueueError('ERR_QUEUE_INVALID', `claim order must be 'newest' or 'oldest', got ${JSON.stringify(order)}`);
}
export function checkLimit(limit) {
    if (!Number.isSafeInteger(limit) || limit < 1) {
        throw new QueueError('ERR_QUEUE_INVALID', `claim limit must be a positive integer, got ${limit}`);
    }
}
export function limitSql(limit) {
    checkLimit(limit);
    return `LIMIT ${limit}`;
}
export function claimIds(branches, dir, limit) {
    const union = branches.map((branch) => `SELECT * FROM (${branch})`).join(' UNION ALL ');
    return `SELECT id FROM (${union}) ORDER BY state = 'unknown' DESC, next_attempt_at ${dir}, id ${dir} ${limitSql(limit)}`;
}
export function sortClaimed(items, order) {
    const sign = order === 'oldest' ? 1 : -1;
    return items.sort((a, b) => Number(b.reconcile) - Number(a.reconcile) || sign * (a.nextAttemptAt - b.nextAttemptAt) || sign * (a.id - b.id));
}
