import { setTimeout as wait } from 'node:timers/promises';
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { addSecret, addUrlSecrets, redactUrl } from '../wire/redact.js';
import { errorCode, errorMessage } from '../errors.js';
import { backoffDelay, type BackoffOptions } from '../system/backoff.js';
import type { AlertNotice } from './alerter.js';
import { notifyReceiver } from './receiver.js';

/**
 * The alert webhook: one JSON POST per notice. The payload is meant to be useful
 * as it is to the common receivers:
 *
 * - **Gotify** (`POST /message`) reads `title`, `message` and `priority` (0-10);
 * - **ntfy** (`POST /<topic>`) shows the body as the message and reads the `Title`,
 *   `Priority` (1-5) and `Tags` headers;
 * - **Home Assistant** webhooks pass the JSON to an automation as `trigger.json`;
 * - anything else gets `event`, `state`, `station`, `reason`, `since` and `at`.
 *
 * The secret (read from `alerts.webhook.secretFile`) goes only into its header; the
 * URL is logged by its origin only (a Home Assistant webhook id is a secret too); both
 * are in the secret registry (src/wire/redact.ts), which every error passes through.
 */

export interface AlertPayload {
  event: string;
  state: 'firing' | 'resolved';
  station: string;
  title: string;
  message: string;
  /** Gotify's scale: 8 firing, 4 resolved, 2 a test. */
  priority: number;
  reason: string | null;
  /** ISO 8601: when the condition began (firing) or cleared (resolved). */
  since: string;
  at: string;
  test?: true;
}

export interface WebhookOptions {
  url: string;
  headers: Record<string, string>;
  /** The secret's header, the text before it (`Bearer `) and the secret itself, or null. */
  secret: { header: string; prefix: string; value: string } | null;
  /** The whole POST's time limit, from connecting to the receiver's answer. Default {@link DEFAULT_WEBHOOK_TIMEOUT_MS}. */
  timeoutMs?: number;
}

const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

export function alertPayload(notice: Omit<AlertNotice, 'event' | 'key'> & { event: string }, station: string, test = false): AlertPayload {
  const word = notice.state === 'firing' ? 'alert' : 'recovered';
  return {
    event: notice.event,
    state: notice.state,
    station,
    title: `${station}: ${notice.event} ${word}`,
    message: notice.message,
    priority: test ? 2 : notice.state === 'firing' ? 8 : 4,
    reason: notice.reason,
    since: new Date(notice.since).toISOString(),
    at: new Date(notice.at).toISOString(),
    ...(test ? { test: true as const } : {}),
  };
}


/** One POST; throws a ReceiverError (receiver.ts) whose message holds neither the secret nor the URL's path. */
export async function postAlert(options: WebhookOptions, payload: AlertPayload, signal?: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    // ntfy's headers; other receivers ignore unknown headers.
    // Header values must be Latin-1: a station named "Garten Müller" keeps its title in the body.
    title: payload.title.replace(/[^\x20-\x7e]/g, '?'),
    priority: payload.state === 'firing' && !payload.test ? 'high' : 'default',
    tags: payload.state === 'firing' ? 'warning' : 'white_check_mark',
    ...Object.fromEntries(Object.entries(options.headers).map(([k, v]) => [k.toLowerCase(), v])),
  };
  if (options.secret) headers[options.secret.header.toLowerCase()] = `${options.secret.prefix}${options.secret.value}`;
  // In the registry before anything could print them (the config's load added them too).
  addSecret(options.secret?.value);
  addUrlSecrets(options.url);
  const request = { method: 'POST' as const, headers, body: JSON.stringify(payload) };
  await notifyReceiver(`alert webhook ${redactUrl(options.url)}`, new URL(options.url), request, options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS, signal);
}

export interface DeliveryOptions {
  attempts: number;
  backoff: BackoffOptions;
  /** Notices waiting beyond this are dropped, oldest first (a receiver down for days). */
  maxQueued: number;
}

const DEFAULT_DELIVERY: DeliveryOptions = { attempts: 6, backoff: { baseMs: 5_000, maxMs: 300_000 }, maxQueued: 50 };

/**
 * Sends notices one at a time in their own p-queue, each retried with backoff, so
 * a slow or dead receiver never holds up the uploader. `stop()` abandons what waits.
 */
export class AlertDelivery {
  private readonly queue = new PQueue({ concurrency: 1 });
  private readonly abort = new AbortController();

  constructor(
    private readonly webhook: WebhookOptions,
    private readonly log: Logger,
    private readonly options: DeliveryOptions = DEFAULT_DELIVERY,
  ) {}

  enqueue(payload: AlertPayload, onSent: () => void = () => {}): void {
    if (this.queue.size >= this.options.maxQueued) {
      this.log.warn({ event: payload.event, state: payload.state }, 'alert dropped: too many alerts wait for the webhook');
      return;
    }
    void this.queue.add(() => this.deliver(payload).then((sent) => sent && onSent()));
  }

  /** Resolves when every queued notice was sent or given up. */
  idle(): Promise<void> {
    return this.queue.onIdle();
  }

  async stop(): Promise<void> {
    this.queue.clear();
    this.abort.abort();
    await this.queue.onIdle();
  }

  private async deliver(payload: AlertPayload): Promise<boolean> {
    for (let attempt = 0; attempt < this.options.attempts; attempt++) {
      if (this.abort.signal.aborted) return false;
      try {
        await postAlert(this.webhook, payload, this.abort.signal);
        this.log.info({ event: payload.event, state: payload.state, to: redactUrl(this.webhook.url) }, `alert sent: ${payload.message}`);
        return true;
      } catch (err) {
        const last = attempt + 1 >= this.options.attempts;
        this.log.warn({ event: payload.event, state: payload.state, attempt: attempt + 1, code: errorCode(err) }, `${errorMessage(err)}${last ? '; alert given up' : '; will retry'}`);
        if (last) return false;
        await sleep(Math.max(100, backoffDelay(attempt, this.options.backoff)), this.abort.signal);
      }
    }
    return false;
  }
}

/** Waits `ms`, or less when `signal` aborts (a stop): resolves either way. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return wait(ms, undefined, { signal }).catch(() => undefined);
}
