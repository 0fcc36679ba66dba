import { NetworkError, OutcomeUnknownError } from '../api/errors.js';
import { sendOnce } from '../api/http.js';
import { StationAgentError, errorMessage, type CodeOf } from '../errors.js';
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
 * Throws a {@link ReceiverError} naming `what` (the receiver by its origin) for anything
 * but a 2xx, its message cleared of every registered secret.
 */
export async function notifyReceiver(
  what: string,
  url: URL,
  request: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  let status: number | undefined;
  let why: string;
  let causeCode: string | undefined;
  try {
    const res = await sendOnce(url, { ...request, display: request.method, timeoutMs, signal, maxResponseBytes: RECEIVER_ANSWER_BYTES, statusSuffices: true });
    if (res.status >= 200 && res.status < 300) return;
    status = res.status;
    why = `HTTP ${res.status}`;
  } catch (err) {
    // The deadline says it plainly ("no complete answer within 10000 ms"); the rest says whether anything was sent.
    const cause = err instanceof Error ? err.cause : undefined;
    why = cause instanceof DeadlineError ? cause.message : errorMessage(err);
    causeCode = err instanceof NetworkError || err instanceof OutcomeUnknownError ? err.cause_code : undefined;
  }
  throw new ReceiverError(redactText(`${what}: ${why}`), status, causeCode);
}

/**
 * `ERR_ALERT_RECEIVER`: a notice's receiver (the alert webhook, the heartbeat's monitor)
 * did not take it: it answered with a status other than 2xx (`status`), or no answer came
 * (`cause_code`: the transport's code, `ECONNREFUSED`, `ERR_DEADLINE`, ...). The message
 * names the receiver by its origin only: its URL is a secret (src/wire/redact.ts).
 */
export class ReceiverError extends StationAgentError {
  readonly code: CodeOf<'ReceiverError'> = 'ERR_ALERT_RECEIVER';

  constructor(
    message: string,
    /** The receiver's status, when it answered. */
    readonly status: number | undefined,
    /** Why no answer came, when none did: the transport's code (src/api/http.ts). */
    readonly cause_code: string | undefined,
  ) {
    super(message);
  }

  override toJSON() {
    return { ...super.toJSON(), status: this.status, causeCode: this.cause_code };
  }
}
