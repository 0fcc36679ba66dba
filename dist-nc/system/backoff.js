export const DEFAULT_BACKOFF = { baseMs: 1_000, maxMs: 300_000 };
export function backoffDelay(attempt, opts = DEFAULT_BACKOFF, retryAfterMs, random = Math.random) {
    const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
    const jittered = Math.floor(random() * exp);
    if (retryAfterMs !== undefined && retryAfterMs > 0) {
        return Math.min(Math.max(opts.maxMs, retryAfterMs), retryAfterMs + Math.floor(random() * opts.baseMs));
    }
    return jittered;
}
export function reconnectDelay(attempt, opts, random = Math.random) {
    const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
    return Math.ceil(exp / 2 + random() * (exp / 2));
}
