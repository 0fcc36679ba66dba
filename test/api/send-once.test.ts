import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { NetworkError, OutcomeUnknownError } from '../../src/api/errors.js';
import { sendOnce, type WireRequest } from '../../src/api/http.js';
import { trickleForTest } from '../helpers/trickle-server.js';
import { until } from '../helpers/until.js';

/**
 * The one request path's per-use options (src/api/http.ts), as the status probe, the
 * alert webhook and the heartbeat use them through `sendOnce`, against real peers: the
 * same exactly-once classes as the REST client's, a body bound, and `statusSuffices`,
 * which takes a receiver's status as its answer however its body ends.
 */

const GET: Omit<WireRequest, 'path'> = { method: 'GET', display: 'GET /x', headers: {}, timeoutMs: 300 };

async function server(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; sockets: Set<Socket> }> {
  const s: Server = createServer(handler);
  const sockets = new Set<Socket>();
  s.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => s.close(() => resolve())));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, sockets };
}

describe('sendOnce', () => {
  it('answers with the whole body over a connection closed once it is over', async () => {
    const s = await server((req, res) => res.end(`you asked ${req.url}`));
    const res = await sendOnce(new URL(`${s.url}/a/b?c=1`), GET);
    expect(res).toMatchObject({ status: 200, complete: true });
    expect(res.body.toString()).toBe('you asked /a/b?c=1');
    await until('the connection closed', () => s.sockets.size === 0);
  });

  it('a refused connection is NetworkError (never sent), like the client', async () => {
    const err = await sendOnce(new URL('http://127.0.0.1:9/x'), GET).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ cause_code: 'ECONNREFUSED' });
  });

  it('a 2xx whose body trickles: outcome unknown at the deadline; with statusSuffices, the status and what came', async () => {
    const t = await trickleForTest('body');
    const err = await sendOnce(new URL(`${t.url}/hook`), GET).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ cause_code: 'ERR_DEADLINE' });

    const res = await sendOnce(new URL(`${t.url}/hook`), { ...GET, statusSuffices: true });
    expect(res.status).toBe(200);
    expect(res.complete).toBe(false);
    // What came until the deadline (a byte every 100 ms), not the 4,000 the peer announced.
    const body = res.body.toString();
    expect('{"success":true,"padding":"'.startsWith(body), body).toBe(true);
  });

  it('headers that trickle are no answer, even with statusSuffices: the deadline fails it', async () => {
    const t = await trickleForTest('headers');
    const err = await sendOnce(new URL(`${t.url}/hook`), { ...GET, statusSuffices: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ cause_code: 'ERR_DEADLINE' });
  });

  it('a body beyond maxResponseBytes fails, or is cut there with statusSuffices', async () => {
    const s = await server((_req, res) => res.end('z'.repeat(100_000)));
    const err = await sendOnce(new URL(`${s.url}/big`), { ...GET, maxResponseBytes: 1_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ cause_code: 'ERR_RESPONSE_TOO_LARGE' });
    expect((err as Error).message).toContain('response larger than 1000 bytes');

    const res = await sendOnce(new URL(`${s.url}/big`), { ...GET, maxResponseBytes: 1_000, statusSuffices: true });
    expect(res).toMatchObject({ status: 200, complete: false });
    expect(res.body.length).toBeLessThanOrEqual(1_000);
  });
});
