import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from './graphql-js.js';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { EmulatorContext } from '../context.js';
import { baseUrlOf, createGqlContext } from './context.js';
import { formatError, prepareOperation } from './execute.js';
import { GRAPHQL_PATH } from './http.js';

/** Keep-alive pings so a half-open connection (a station that lost its link) is noticed. */
const KEEP_ALIVE_MS = 12_000;

/** How long a closing service waits for clients to answer its close frame. */
const CLOSE_GRACE_MS = 1_000;

/**
 * The subscription transport: the `graphql-ws` protocol (subprotocol
 * `graphql-transport-ws`) on WebSocket upgrades of `GET /graphql`, on the same port
 * as REST. Queries work over it too. Documents go through the same parsing,
 * validation and limits as over HTTP. Closing the app closes every socket first.
 */
export function graphqlWebSocket(app: FastifyInstance, emulator: EmulatorContext, schema: GraphQLSchema): void {
  const wss = new WebSocketServer({ noServer: true });
  const server = useServer(
    {
      schema,
      onSubscribe: (ctx, _id, payload) => {
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
    },
    wss,
    KEEP_ALIVE_MS,
  );

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0].replace(/\/+$/, '');
    if (path !== GRAPHQL_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  app.server.on('upgrade', onUpgrade);

  app.addHook('preClose', async () => {
    app.server.off('upgrade', onUpgrade);
    // 1001 Going Away tells clients to reconnect later; one that does not answer the close is cut off.
    for (const client of wss.clients) client.close(1001, 'service shutting down');
    const cutOff = setTimeout(() => wss.clients.forEach((client) => client.terminate()), CLOSE_GRACE_MS);
    try {
      await server.dispose();
    } finally {
      clearTimeout(cutOff);
    }
  });
}
