import { addUrlSecrets, redactUrl } from '../wire/redact.js';
import { activeConditions, type ConditionInputs } from './conditions.js';
import { notifyReceiver } from './receiver.js';

/**
 * The heartbeat (`alerts.heartbeat`): a dead-man's switch. While the agent is healthy it
 * pings the monitor's URL; while it is not, the URL's fail signal with a one-line reason.
 * healthchecks.io's convention: GET `<url>` is a success, POST `<url>/fail` a failure whose
 * body the monitor shows. Uptime Kuma's push monitor (`.../api/push/<token>?status=up&msg=OK`)
 * takes its failure as `status=down&msg=<reason>` on the same URL. A monitor that hears
 * nothing alerts: the station is dead.
 *
 * The URL is a secret (a healthchecks.io URL is its check's credential): nothing here puts
 * it, its path or its query into an error, only its origin.
 */

/** Uploads failing this long (the circuit open) is unhealthy. */
const FAILING_FOR_MS = 10 * 60_000;
/** The reason's length at most: one line. */
const REASON_CHARS = 200;

export interface HealthInputs extends ConditionInputs {
  /** Since when the uploader's circuit is open (the service keeps failing), or null. */
  circuitOpenSince: number | null;
}

/** Why the agent is unhealthy, in one line; null when it is healthy. */
export function unhealthyReason(x: HealthInputs): string | null {
  const reasons = activeConditions(x).map((c) => c.message);
  if (x.circuitOpenSince !== null && x.now - x.circuitOpenSince >= FAILING_FOR_MS) {
    reasons.unshift(`uploads failing for ${Math.round((x.now - x.circuitOpenSince) / 60_000)} min: the service keeps failing`);
  }
  if (reasons.length === 0) return null;
  const line = reasons.join('; ').replace(/\s+/g, ' ');
  return line.length > REASON_CHARS ? `${line.slice(0, REASON_CHARS - 1)}…` : line;
}

/** The request that says `reason` (null: healthy) to the monitor at `url`. */
function pingRequest(url: string, reason: string | null): { url: URL; method: 'GET' | 'POST'; body: string } {
  const target = new URL(url);
  if (/\/api\/push\/[^/]+\/?$/.test(target.pathname)) {
    // Uptime Kuma: the same URL, its status and message in the query.
    target.searchParams.set('status', reason === null ? 'up' : 'down');
    target.searchParams.set('msg', reason ?? 'OK');
    return { url: target, method: 'GET', body: '' };
  }
  if (reason === null) return { url: target, method: 'GET', body: '' };
  target.pathname = `${target.pathname.replace(/\/+$/, '')}/fail`;
  return { url: target, method: 'POST', body: reason };
}

/**
 * One ping within `timeoutMs` in all, however slowly the monitor answers, over a
 * connection of its own (receiver.ts). Throws a ReceiverError that names the
 * monitor by its origin only.
 */
export async function ping(url: string, reason: string | null, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const request = pingRequest(url, reason);
  // The URL's path and query are in the registry, and with them every request made from it
  // (its `/fail`, Uptime Kuma's status and message), which is not added: its message changes.
  addUrlSecrets(url);
  const headers = { 'content-type': 'text/plain; charset=utf-8', 'user-agent': 'station-agent' };
  await notifyReceiver(`heartbeat ${redactUrl(url)}`, request.url, { method: request.method, headers, ...(request.body ? { body: request.body } : {}) }, timeoutMs, signal);
}
