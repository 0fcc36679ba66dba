import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ReceiverError } from '../../src/alerts/receiver.js';
import { AlertDelivery, alertPayload, postAlert, type WebhookOptions } from '../../src/alerts/webhook.js';
import { outcomeWithin } from '../helpers/outcome.js';
import { trickleForTest as trickle } from '../helpers/trickle-server.js';

/**
 * The webhook against a real receiver that never finishes its answer (headers, then one
 * byte every 100 ms; the receiver sent one every 2 s): idle timeouts restart at
 * each byte, so only the POST's total deadline lets the notices behind it go out.
 */

const HOOK_ID = 'ha-webhook-id-7f3a91';
/** Long enough that a delivery still running has no deadline: the webhook's here is 300 ms. */
const GUARD_MS = 20_000;

function delivery(url: string, attempts: number): { delivery: AlertDelivery; logs: Record<string, unknown>[] } {
  const logs: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const webhook: WebhookOptions = { url: `${url}/api/webhook/${HOOK_ID}`, headers: {}, secret: null, timeoutMs: 300 };
  const d = new AlertDelivery(webhook, log, { attempts, backoff: { baseMs: 10, maxMs: 20 }, maxQueued: 50 });
  onTestFinished(() => d.stop());
  return { delivery: d, logs };
}

const notice = (state: 'firing' | 'resolved') =>
  alertPayload({ event: 'uploads-paused', state, reason: 'token-rejected', message: 'uploads paused', since: 0, at: 1_000 }, 'Garden');

/** Waits for the queue to empty, failing (instead of hanging) if it does not within GUARD_MS. */
async function settled(d: AlertDelivery): Promise<void> {
  expect(await outcomeWithin(d.idle().then(() => 'idle'), GUARD_MS), 'the alert queue should have emptied').toBe('idle');
}

describe('alert webhook against a receiver that trickles', () => {
  it('a 2xx whose body trickles: the firing notice ends at its deadline, and the resolved one behind it is sent', async () => {
    const s = await trickle('body');
    const { delivery: d, logs } = delivery(s.url, 3);
    d.enqueue(notice('firing'));
    d.enqueue(notice('resolved'));
    await settled(d);
    expect(s.requests).toEqual([`POST /api/webhook/${HOOK_ID} HTTP/1.1`, `POST /api/webhook/${HOOK_ID} HTTP/1.1`]);
    expect(s.bodies.map((b) => (JSON.parse(b.toString()) as { state: string }).state)).toEqual(['firing', 'resolved']);
    expect(logs.filter((l) => String(l.msg).startsWith('alert sent')).map((l) => l.state)).toEqual(['firing', 'resolved']);
  }, 30_000);

  it('headers that trickle: each attempt ends at its deadline and says so in the log, then the notice is given up', async () => {
    const s = await trickle('headers');
    const { delivery: d, logs } = delivery(s.url, 2);
    d.enqueue(notice('firing'));
    await settled(d);
    expect(s.requests).toHaveLength(2);
    const warnings = logs.filter((l) => l.level === 40).map((l) => String(l.msg));
    expect(warnings).toEqual([
      `alert webhook ${s.url}/<redacted>: no complete answer within 300 ms; will retry`,
      `alert webhook ${s.url}/<redacted>: no complete answer within 300 ms; alert given up`,
    ]);
    expect(logs.filter((l) => l.level === 40).map((l) => l.code)).toEqual(['ERR_ALERT_RECEIVER', 'ERR_ALERT_RECEIVER']);
    expect(JSON.stringify(logs)).not.toContain(HOOK_ID);
  }, 30_000);
});

/** A real receiver that answers every request with `status`, echoing the path it was sent. */
async function refusing(status: number): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'text/plain' }).end(`refused ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A port nobody listens on: one just closed. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('a receiver that does not take the notice: ERR_ALERT_RECEIVER, naming the receiver by its origin', () => {
  it('refused (HTTP 500): its status, in the error and in every log line of the delivery', async () => {
    const url = await refusing(500);
    const options: WebhookOptions = { url: `${url}/api/webhook/${HOOK_ID}`, headers: {}, secret: null, timeoutMs: 5_000 };
    const err = await postAlert(options, notice('firing')).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ReceiverError);
    expect(err).toMatchObject({ code: 'ERR_ALERT_RECEIVER', status: 500, cause_code: undefined, message: `alert webhook ${url}/<redacted>: HTTP 500` });
    expect(JSON.stringify((err as ReceiverError).toJSON())).not.toContain(HOOK_ID);

    const { delivery: d, logs } = delivery(url, 2);
    d.enqueue(notice('firing'));
    await settled(d);
    const warnings = logs.filter((l) => l.level === 40);
    expect(warnings.map((l) => [l.code, l.msg])).toEqual([
      ['ERR_ALERT_RECEIVER', `alert webhook ${url}/<redacted>: HTTP 500; will retry`],
      ['ERR_ALERT_RECEIVER', `alert webhook ${url}/<redacted>: HTTP 500; alert given up`],
    ]);
    expect(JSON.stringify(logs)).not.toContain(HOOK_ID);
  });

  it('not there (connection refused): the transport\'s code as its cause, no status', async () => {
    const url = await closedPort();
    const options: WebhookOptions = { url: `${url}/api/webhook/${HOOK_ID}`, headers: {}, secret: null, timeoutMs: 5_000 };
    const err = await postAlert(options, notice('firing')).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ReceiverError);
    expect(err).toMatchObject({ code: 'ERR_ALERT_RECEIVER', status: undefined, cause_code: 'ECONNREFUSED' });
    expect((err as Error).message).toMatch(new RegExp(`^alert webhook ${url.replace(/\./g, '\\.')}/<redacted>: request not sent: connection refused`));
    expect((err as Error).message).not.toContain(HOOK_ID);
  });
});
