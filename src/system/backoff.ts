/**
 * Exponential backoff with full jitter (the "Full Jitter" variant from AWS's
 * architecture blog): the delay is uniform in [0, min(cap, base * 2^attempt)].
 * Full jitter spreads the retries of many items (and of many stations after a
 * service outage) instead of letting them hit the service in synchronised waves.
 *
 * Shared by the uploader, the config sync, the encoder, the alert webhook and the MQTT
 * publisher, so it lives at the bottom of the import graph (docs/ARCHITECTURE.md).
 */
export interface BackoffOptions {
  /** Delay scale of the first retry. Default 1 s. */
  baseMs: number;
  /** Upper bound of any delay. Default 5 min. */
  maxMs: number;
}

const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1_000, maxMs: 300_000 };

/**
 * @param attempt how many attempts already failed (0 for the first retry)
 * @param retryAfterMs the service's Retry-After, honoured as a floor: retrying
 *   earlier than the service asked only earns another 429
 * @param random injectable for tests; returns [0, 1)
 */
export function backoffDelay(
  attempt: number,
  opts: BackoffOptions = DEFAULT_BACKOFF,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
  const jittered = Math.floor(random() * exp);
  if (retryAfterMs !== undefined && retryAfterMs > 0) {
    // A small jitter above the floor so that items told the same Retry-After do not all return at once.
    return Math.min(Math.max(opts.maxMs, retryAfterMs), retryAfterMs + Math.floor(random() * opts.baseMs));
  }
  return jittered;
}

/**
 * The delay before retrying one peer (the MQTT broker, the config sync's push): "equal jitter", uniform
 * in [e/2, e] with e = min(cap, base * 2^attempt). Unlike {@link backoffDelay} it never
 * waits less than half the step: full jitter spreads many clients over one service, but
 * one station retrying one broker gains nothing from a wait near zero, and the promise
 * "1 s doubling to a minute" must hold for the count of refused connects.
 *
 * @example reconnectDelay(3, { baseMs: 1_000, maxMs: 60_000 }) // 4000..8000 ms
 */
export function reconnectDelay(attempt: number, opts: BackoffOptions, random: () => number = Math.random): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
  return Math.ceil(exp / 2 + random() * (exp / 2));
}
