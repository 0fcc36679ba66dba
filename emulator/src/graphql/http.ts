import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, type GraphQLSchema } from './graphql-js.js';
import type { EmulatorContext } from '../context.js';
import { EmulatorHttpError } from '../http-errors.js';
import { baseUrlOf, createGqlContext } from './context.js';
import { executePrepared, formatError, prepareOperation, type GraphqlRequest } from './execute.js';

/** Where the GraphQL interface is served (POST and GET over HTTP, graphql-ws over WebSocket). */
export const GRAPHQL_PATH = '/graphql';

/**
 * GraphQL over HTTP (the graphql-over-http conventions with `application/json`):
 * - POST with a JSON body `{query, variables?, operationName?}`;
 * - GET with `?query=...&variables=<JSON>&operationName=...` (queries only).
 * A well-formed request is answered 200 with `{data?, errors?}`, also when the query has
 * errors; a request that is not well-formed (no query, variables not an object, bad
 * JSON) 400 with `{errors: [...]}`; other methods 405. Subscriptions are refused here:
 * they are served over WebSocket at the same path.
 */
export async function graphqlHttpRoutes(app: FastifyInstance, emulator: EmulatorContext, schema: GraphQLSchema): Promise<void> {
  const answer = async (request: FastifyRequest, reply: FastifyReply, raw: unknown, fromQueryString: boolean) => {
    const parsed = readRequest(raw, fromQueryString);
    if (typeof parsed === 'string') return badRequest(reply, parsed);
    const context = createGqlContext(emulator, baseUrlOf(request.headers.host));
    const prepared = prepareOperation(schema, parsed, context);
    if (!prepared.ok) return reply.code(200).send({ errors: prepared.errors.map(formatError) });
    if (prepared.kind === 'subscription') {
      const error = new GraphQLError(`subscriptions are served over WebSocket (graphql-ws protocol) at ${GRAPHQL_PATH}`);
      return reply.code(200).send({ errors: [formatError(error)] });
    }
    return reply.code(200).send(await executePrepared(prepared.args));
  };

  await app.register((scope, _options, done) => {
    // JSON syntax errors and the like, in the GraphQL error shape instead of the REST one.
    // The app's own refusals keep their status: the admin token in the URL or the body is 403 here too.
    scope.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
      if (error instanceof EmulatorHttpError) return reply.code(error.status).send({ errors: [{ message: error.message }] });
      const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
      return reply.code(status).send({ errors: [{ message: status === 500 ? 'Internal server error' : error.message }] });
    });
    scope.post(GRAPHQL_PATH, (request, reply) => answer(request, reply, request.body, false));
    scope.get(GRAPHQL_PATH, (request, reply) => answer(request, reply, request.query, true));
    scope.route({
      method: ['PUT', 'PATCH', 'DELETE'],
      url: GRAPHQL_PATH,
      handler: (_request, reply) => reply.code(405).header('allow', 'GET, POST').send({ errors: [{ message: 'use GET or POST' }] }),
    });
    done();
  });
}

function badRequest(reply: FastifyReply, message: string) {
  return reply.code(400).send({ errors: [{ message }] });
}

/** Checks the request's shape; a string is the reason it is not well-formed. */
function readRequest(raw: unknown, fromQueryString: boolean): GraphqlRequest | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return 'the request must be a JSON object {"query": "...", "variables": {...}} (POST) or carry ?query= (GET)';
  }
  const { query, variables, operationName } = raw as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') return 'query is missing: send {"query": "..."}';
  let vars: unknown = variables;
  if (fromQueryString && typeof variables === 'string' && variables !== '') {
    try {
      vars = JSON.parse(variables);
    } catch {
      return 'variables is not valid JSON';
    }
  }
  if (vars !== undefined && vars !== null && vars !== '' && (typeof vars !== 'object' || Array.isArray(vars))) {
    return 'variables must be a JSON object';
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    return 'operationName must be a string';
  }
  return {
    query,
    variables: vars === '' ? undefined : (vars as Record<string, unknown> | null | undefined),
    operationName: operationName === '' ? undefined : operationName,
  };
}
