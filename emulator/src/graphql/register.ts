import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import type { EmulatorLogger } from '../options.js';
import { graphqlHttpRoutes } from './http.js';
import { registerLocalTimeFunctions } from './queries/local-time.js';
import { buildGraphqlSchema } from './schema.js';
import { graphqlWebSocket } from './ws.js';

/**
 * Adds the GraphQL interface to the local service: `/graphql` over HTTP (POST, GET)
 * and over WebSocket (graphql-ws), reading the same SQLite database the REST side
 * writes. Call before the app listens.
 */
export async function registerGraphql(app: FastifyInstance, context: EmulatorContext, logger?: EmulatorLogger): Promise<void> {
  registerLocalTimeFunctions(context.store.db);
  const schema = buildGraphqlSchema();
  await graphqlHttpRoutes(app, context, schema);
  graphqlWebSocket(app, context, schema, logger);
}
