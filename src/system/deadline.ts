import { StationAgentError, type CodeOf } from '../errors.js';

/**
 * The total deadline of an outbound request: the one rule that every request the agent
 * makes (the service's REST API, the alert webhook, the status probe, GraphQL, the MQTT
 * connect, `watch`'s handshake) ends within a time limit, however the peer behaves.
 *
 * Idle timeouts are not enough: an HTTP client's headers and body timeouts and a socket's
 * `timeout` restart at every byte, so a receiver that sends its headers and then one
 * byte every 2 s holds a request (and whatever waits behind it: the alert queue, a
 * daemon's stop) for ever. A deadline counts from the start, whatever arrives.
 *
 * @example
 * const limit = deadline(10_000, callerSignal);
 * try {
 *   await request(url, { signal: limit.signal });
 * } catch (err) {
 *   if (limit.expired) throw limit.signal.reason; // a DeadlineError: "no complete answer within 10000 ms"
 *   throw err;
 * } finally {
 *   limit.clear();
 * }
 */
export interface Deadline {
  /** Aborts at the deadline (reason: a {@link DeadlineError}) or when the caller's signal aborts (its reason). */
  readonly signal: AbortSignal;
  /** True once the deadline, not the caller, ended the request. */
  readonly expired: boolean;
  /** Releases the timer and the caller's listener: call it when the request is over. */
  clear(): void;
}

/** @param what names the request in the {@link DeadlineError}'s message (e.g. `alert webhook https://host:443`). */
export function deadline(ms: number, caller?: AbortSignal, what?: string): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onCaller = () => controller.abort(caller?.reason);
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DeadlineError(what, ms));
  }, ms);
  // A deadline never keeps the process alive by itself.
  timer.unref();
  if (caller?.aborted) onCaller();
  else caller?.addEventListener('abort', onCaller, { once: true });
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    clear() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCaller);
    },
  };
}

/** `ERR_DEADLINE`: an outbound request did not complete within its total time limit. */
export class DeadlineError extends StationAgentError {
  readonly code: CodeOf<'DeadlineError'> = 'ERR_DEADLINE';

  constructor(
    what: string | undefined,
    readonly ms: number,
  ) {
    super(`${what ? `${what}: ` : ''}no complete answer within ${ms} ms`);
  }
}
