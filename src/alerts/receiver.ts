import { sendOnce } from '../api/http.js';
import { errorMessage } from '../errors.js';
import { DeadlineError } from '../system/deadline.js';
import { redactText } from '../wire/redact.js';

/** What a receiver's answer may hold that is read: its status matters, the rest is drained up to here and dropped. */
const RECEIVER_ANSWER_BYTES = 64 * 1024;

/**
 * One request to a notice's receiver (the webhook's, the heartbeat's monitor) through the
 * agent's one request path (src/api/http.ts `sendOnce`: a connection of its own, alerts
 * being rare), within `timeoutMs` in all, from connecting to the receiver's answer: a
 * total deadline, not only the socket's idle timeout, since a receiver that sends its
 * headers and then one byte every 2 s held the alert queue, and every notice behind it,
 * for ever. The status is the receiver's answer (`statusSuffices`): a 2xx whose body still
 * trickles at the deadline was delivered (sending it again would only repeat the notice).
 * Throws an Error named `what` (the receiver by its origin) for anything but a 2xx, its
 * message cleared of every registered secret.
 */
export async function notifyReceiver(
  what: string,
  url: URL,
  request: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  let why: string;
  try {
    const res = await sendOnce(url, { ...request, display: request.method, timeoutMs, signal, maxResponseBytes: RECEIVER_ANSWER_BYTES, statusSuffices: true });
    if (res.status >= 200 && res.status < 300) return;
    why = `HTTP ${res.status}`;
  } catch (err) {
    // The deadline says it plainly ("no complete answer within 10000 ms"); the rest says whether anything was sent.
    const cause = err instanceof Error ? err.cause : undefined;
    why = cause instanceof DeadlineError ? cause.message : errorMessage(err);
  }
  throw new Error(redactText(`${what}: ${why}`));
}
