/* eslint-disable @typescript-eslint/no-explicit-any -- tests read whatever the service sent */
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import WebSocket from 'ws';
import { until } from '../../../test/helpers/until.js';
import { WEB_SOCKET_LIMITS } from '../../src/graphql/index.js';
import { startWorld, type World } from './world.js';

/**
 * The WebSocket side's limits (issue 35: 400 connections x 50 subscriptions grew the
 * service by 82 MB and printed some 11,000 stack traces), over real sockets with the
 * graphql-ws protocol spoken by hand, so that close codes and error messages are seen
 * as the wire has them.
 */

let w: World;
let url: string;
const opened: Peer[] = [];
const logged: { level: string; obj: object; msg?: string }[] = [];
const consoleLines: unknown[][] = [];

beforeAll(async () => {
  for (const level of ['error', 'warn', 'log'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void consoleLines.push([level, ...args]));
  }
  w = await startWorld({
    logger: {
      info: (obj, msg) => logged.push({ level: 'info', obj, msg }),
      warn: (obj, msg) => logged.push({ level: 'warn', obj, msg }),
      error: (obj, msg) => logged.push({ level: 'error', obj, msg }),
    },
  });
  url = `${w.emulator.url.replace(/^http/, 'ws')}/graphql`;
});
afterAll(async () => {
  await w.stop();
  vi.restoreAllMocks();
});
afterEach(async () => {
  for (const peer of opened.splice(0)) peer.socket.terminate();
  await until('every socket let go', () => w.emulator.events.listenerCount('detection') === 0, 10_000);
});

interface Peer {
  socket: WebSocket;
  messages: any[];
  closed?: { code: number; reason: string };
  /** Resolves with the first message that `match` accepts. */
  expectMessage(what: string, match: (message: any) => boolean): Promise<any>;
}

function open(): Peer {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const peer: Peer = {
    socket,
    messages: [],
    expectMessage: (what, match) =>
      until(what, () => {
        const found: unknown = peer.messages.find(match);
        if (found === undefined && peer.closed) throw new Error(`closed ${JSON.stringify(peer.closed)} before ${what}`);
        return found;
      }),
  };
  // A text message arrives as one Buffer (ws's default binaryType).
  socket.on('message', (data) => peer.messages.push(JSON.parse((data as Buffer).toString('utf8'))));
  socket.on('close', (code, reason) => (peer.closed = { code, reason: String(reason) }));
  socket.on('error', () => {});
  opened.push(peer);
  return peer;
}

/** A connection the service acknowledged (graphql-ws `connection_init` answered by `connection_ack`). */
async function connected(): Promise<Peer> {
  const peer = open();
  await new Promise<void>((resolve, reject) => {
    peer.socket.once('open', () => resolve());
    peer.socket.once('close', (code) => reject(new Error(`closed with ${code} before opening`)));
  });
  peer.socket.send(JSON.stringify({ type: 'connection_init' }));
  await peer.expectMessage('connection_ack', (m) => m.type === 'connection_ack');
  return peer;
}

const SMALL = 'detection { id }';

function subscribe(peer: Peer, id: string, selection = SMALL): void {
  peer.socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: `subscription { newDetection(stationIds: [${w.ids.garden}]) { ${selection} } }` } }));
}

/** About 3 KB a message, so that a peer that stops reading soon has its kernel buffers full. */
const LARGE = Array.from({ length: 12 }, (_, i) => `d${i}: detection { id timestamp confidence species { commonName scientificName imageUrl } station { name } }`).join(' ');

const listening = (count: number) =>
  until(`${count} detection listeners`, () => w.emulator.events.listenerCount('detection') === count, 10_000, () => `have ${w.emulator.events.listenerCount('detection')}`);

describe('WebSocket limits', () => {
  test(`more than ${WEB_SOCKET_LIMITS.connections} connections: the next is closed with 1013 Try Again Later, the others keep being served`, async () => {
    const peers: Peer[] = [];
    for (let i = 0; i < WEB_SOCKET_LIMITS.connections; i++) peers.push(await connected());
    subscribe(peers[0], 'a');
    await listening(1);

    const refused = open();
    await until('the connection over the limit closed', () => refused.closed);
    expect(refused.closed).toEqual({ code: 1013, reason: `too many connections: at most ${WEB_SOCKET_LIMITS.connections}` });
    expect(refused.messages).toEqual([]);

    // The service still serves: the live subscription, a query over HTTP, and a new
    // connection once one has gone.
    const posted = await w.detect('garden', 1);
    await peers[0].expectMessage('the detection on a connection within the limit', (m) => m.type === 'next' && m.id === 'a');
    expect(peers[0].messages.find((m) => m.type === 'next').payload.data.newDetection.detection.id).toBe(Buffer.from(`Detection:${posted.id}`).toString('base64'));
    expect((await w.gql('{ stations { totalCount } }')).data).toEqual({ stations: { totalCount: 4 } });
    peers[1].socket.close(1000);
    await until('a slot free again', async () => {
      const next = open();
      await until('its open or close', () => next.socket.readyState === WebSocket.OPEN || next.closed);
      if (next.closed) return false;
      next.socket.send(JSON.stringify({ type: 'connection_init' }));
      return (await next.expectMessage('connection_ack', (m) => m.type === 'connection_ack')) as unknown;
    });
  });

  test(`more than ${WEB_SOCKET_LIMITS.subscriptionsPerConnection} subscriptions on one connection: the next is refused by an error message, the connection and its others stay`, async () => {
    const peer = await connected();
    for (let i = 0; i < WEB_SOCKET_LIMITS.subscriptionsPerConnection; i++) subscribe(peer, `s${i}`);
    await listening(WEB_SOCKET_LIMITS.subscriptionsPerConnection);
    subscribe(peer, 'one-too-many');
    const refusal = await peer.expectMessage('the refusal', (m) => m.id === 'one-too-many');
    expect(refusal).toEqual({
      id: 'one-too-many',
      type: 'error',
      payload: [
        {
          message: `too many subscriptions on this connection: at most ${WEB_SOCKET_LIMITS.subscriptionsPerConnection}; complete one or open another connection`,
          extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' },
        },
      ],
    });
    expect(w.emulator.events.listenerCount('detection')).toBe(WEB_SOCKET_LIMITS.subscriptionsPerConnection);
    await w.detect('garden', 1);
    await until('every subscription within the limit got the detection', () => peer.messages.filter((m) => m.type === 'next').length === WEB_SOCKET_LIMITS.subscriptionsPerConnection);
    expect(peer.closed).toBeUndefined();

    // One completed makes room for one more.
    peer.socket.send(JSON.stringify({ id: 's0', type: 'complete' }));
    await listening(WEB_SOCKET_LIMITS.subscriptionsPerConnection - 1);
    subscribe(peer, 'in-its-place');
    await listening(WEB_SOCKET_LIMITS.subscriptionsPerConnection);
  });

  test(`a message over ${WEB_SOCKET_LIMITS.messageBytes} bytes closes its connection with 1009 Message Too Big`, async () => {
    const peer = await connected();
    peer.socket.send(JSON.stringify({ id: 'big', type: 'subscribe', payload: { query: `{ stations { totalCount } } # ${'x'.repeat(WEB_SOCKET_LIMITS.messageBytes)}` } }));
    await until('the connection closed', () => peer.closed);
    expect(peer.closed?.code).toBe(1009);
    // One line, without a stack: a client sending such a thing may want to know.
    expect(logged).toEqual([
      { level: 'warn', obj: { err: { message: 'Max payload size exceeded', code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' } }, msg: 'GraphQL WebSocket closed on an error' },
    ]);
    logged.length = 0;
  });

  test('peers that vanish while detections stream leave no stack trace and no log line', async () => {
    consoleLines.length = 0;
    logged.length = 0;
    const peers: Peer[] = [];
    for (let i = 0; i < 20; i++) peers.push(await connected());
    peers.forEach((peer, i) => {
      for (let s = 0; s < 10; s++) subscribe(peer, `${i}-${s}`, LARGE);
    });
    await listening(200);
    // The peers stop reading, so that what the service sends piles up unread and the cut
    // below resets their TCP connections (a peer gone, as a killed client or a lost link
    // is), while the service is still sending: its writes then fail with EPIPE/ECONNRESET.
    for (const peer of peers) (peer.socket as any)._socket.pause();
    let posted = 0;
    const posting = (async () => {
      for (; posted < 60; posted++) await w.detect('garden', posted);
    })();
    await until('the stream under way', () => posted >= 10);
    for (const peer of peers) (peer.socket as any)._socket.destroy();
    await posting;
    await listening(0);
    expect((await w.gql('{ stations { totalCount } }')).data).toEqual({ stations: { totalCount: 4 } });
    expect(consoleLines).toEqual([]);
    expect(logged).toEqual([]);
  });
});
