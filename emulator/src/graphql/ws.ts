import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { GraphQLError, type GraphQLSchema } from './graphql-js.js';
import { CloseCode, handleProtocols, makeServer } from 'graphql-ws';
import WebSocket, { WebSocketServer } from 'ws';
import type { EmulatorContext } from '../context.js';
import type { EmulatorLogger } from '../options.js';
import { baseUrlOf, createGqlContext } from './context.js';
import { GraphqlSubscriptionLimitError } from './errors.js';
import { formatError, prepareOperation } from './execute.js';
import { GRAPHQL_PATH } from './http.js';

/** Keep-alive pings so a half-open connection (a station that lost its link) is noticed. */
const KEEP_ALIVE_MS = 12_000;

/** How long a closing service waits for clients to answer its close frame. */
const CLOSE_GRACE_MS = 1_000;

/**
 * What one local service holds open over WebSocket (docs/EMULATOR.md). Each live
 * subscription holds its parsed document and runs one SQL query per detection stored:
 * 400 connections of 50 subscriptions each grew the service by hundreds of MB (issue
 * 35; figures in the commit that set these). A dashboard or `station-agent watch` uses
 * one connection and a few subscriptions.
 */
export const WEB_SOCKET_LIMITS = {
  /** Open connections per service; the next is closed with 1013 Try Again Later. */
  connections: 50,
  /** Operations in flight per connection; the next is answered with an `error` message. */
  subscriptionsPerConnection: 10,
  /** Largest message a client may send, in bytes (the HTTP side's JSON body limit); larger closes with 1009. */
  messageBytes: 1024 * 1024,
} as const;

/**
 * RFC 6455's registered code "Try Again Later" (the server is overloaded): graphql-ws
 * clients treat it as retryable, unlike its own 44xx codes (4429 means a second
 * connection_init, not a limit).
 */
const TRY_AGAIN_LATER = 1013;

/** A peer that went away (killed, lost its link): nothing to report, the socket closes. */
const PEER_GONE = new Set(['EPIPE', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT']);

/**
 * The subscription transport: the `graphql-ws` protocol (subprotocol
 * `graphql-transport-ws`) on WebSocket upgrades of `GET /graphql`, on the same port
 * as REST. Queries work over it too. Documents go through the same parsing,
 * validation and limits as over HTTP. Closing the app closes every socket first.
 *
 * The socket binding is written on graphql-ws's makeServer rather than its `useServer`,
 * whose send rejects when the peer has gone, which it reports with a stack trace on
 * the console per subscription. Here a send to a peer gone resolves (the close that
 * follows ends its subscriptions), and what is worth a line goes to the service's logger.
 */
export function graphqlWebSocket(app: FastifyInstance, emulator: EmulatorContext, schema: GraphQLSchema, logger?: EmulatorLogger): void {
  const wss = new WebSocketServer({ noServer: true, handleProtocols, maxPayload: WEB_SOCKET_LIMITS.messageBytes });
  const server = makeServer<undefined, { request: IncomingMessage }>({
    schema,
    onSubscribe: (ctx, _id, payload) => {
      // graphql-ws has already counted this operation in ctx.subscriptions.
      if (Object.keys(ctx.subscriptions).length > WEB_SOCKET_LIMITS.subscriptionsPerConnection) return [subscriptionLimitError()];
      const context = createGqlContext(emulator, baseUrlOf(ctx.extra.request.headers.host));
      const prepared = prepareOperation(schema, payload, context);
      if (!prepared.ok) return prepared.errors;
      return prepared.args;
    },
    onError: (_ctx, _id, _payload, errors) => errors.map(formatError),
    onNext: (_ctx, _id, _payload, _args, result) => ({
      ...result,
      ...(result.errors ? { errors: result.errors.map((e) => ('toJSON' in e ? formatError(e) : e)) } : {}),
    }),
  });

  let open = 0;
  const serve = (socket: WebSocket, request: IncomingMessage) => {
    open++;
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (!PEER_GONE.has(err.code ?? '')) logger?.warn({ err: { message: err.message, code: err.code } }, 'GraphQL WebSocket closed on an error');
    });
    // A peer that does not answer a ping within the next interval is cut off.
    let pongWait: NodeJS.Timeout | undefined;
    socket.on('pong', () => clearTimeout(pongWait));
    const keepAlive = setInterval(() => {
      if (socket.readyState !== WebSocket.OPEN) return;
      pongWait = setTimeout(() => socket.terminate(), KEEP_ALIVE_MS);
      socket.ping();
    }, KEEP_ALIVE_MS);
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve) => {
            if (socket.readyState !== WebSocket.OPEN) return resolve();
            socket.send(data, () => resolve());
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          // A text message arrives as one Buffer (ws's default binaryType, fragments joined).
          socket.on('message', (data) => {
            handle((data as Buffer).toString('utf8')).catch((err: unknown) => {
              // graphql-ws's own protocol errors close the socket itself; this is a bug here.
              logger?.error({ err: { message: (err as Error).message, stack: (err as Error).stack } }, 'GraphQL WebSocket message failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      { request },
    );
    socket.once('close', (code, reason) => {
      open--;
      clearInterval(keepAlive);
      clearTimeout(pongWait);
      void closed(code, String(reason));
    });
  };

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0].replace(/\/+$/, '');
    if (path !== GRAPHQL_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      // Refused after the handshake, so that the client sees why (a refused upgrade is a bare 1006).
      if (open >= WEB_SOCKET_LIMITS.connections) ws.close(TRY_AGAIN_LATER, `too many connections: at most ${WEB_SOCKET_LIMITS.connections}`);
      else serve(ws, request);
    });
  };
  app.server.on('upgrade', onUpgrade);

  app.addHook('preClose', async () => {
    app.server.off('upgrade', onUpgrade);
    // 1001 Going Away tells clients to reconnect later; one that does not answer the close is cut off.
    const clients = [...wss.clients];
    const closed = Promise.all(clients.map((client) => new Promise((resolve) => client.once('close', resolve))));
    for (const client of clients) client.close(1001, 'service shutting down');
    const cutOff = setTimeout(() => clients.forEach((client) => client.terminate()), CLOSE_GRACE_MS);
    try {
      await closed;
      await new Promise<void>((resolve, reject) => wss.close((err) => (err ? reject(err) : resolve())));
    } finally {
      clearTimeout(cutOff);
    }
  });
}

function subscriptionLimitError(): GraphQLError {
  const message = `too many subscriptions on this connection: at most ${WEB_SOCKET_LIMITS.subscriptionsPerConnection}; complete one or open another connection`;
  return new GraphQLError(message, { originalError: new GraphqlSubscriptionLimitError(message) });
}
