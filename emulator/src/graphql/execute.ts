import {
  execute,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from './graphql-js.js';
import type { GqlContext } from './context.js';
import { GraphqlError, GraphqlLimitError } from './errors.js';
import { measureOperation, QUERY_LIMITS } from './limits.js';

/** One GraphQL request as both transports receive it. */
export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

export type Prepared = { ok: true; args: ExecutionArgs; kind: 'query' | 'mutation' | 'subscription' } | { ok: false; errors: readonly GraphQLError[] };

/**
 * Parses, validates and measures a request against the limits (limits.ts). Shared by
 * HTTP and WebSocket, so both refuse the same documents with the same messages.
 */
export function prepareOperation(schema: GraphQLSchema, request: GraphqlRequest, contextValue: GqlContext): Prepared {
  let document: DocumentNode;
  try {
    document = parse(request.query, { maxTokens: QUERY_LIMITS.MAX_TOKENS });
  } catch (err) {
    return { ok: false, errors: [err instanceof GraphQLError ? err : new GraphQLError(String(err))] };
  }
  const validationErrors = validate(schema, document);
  if (validationErrors.length > 0) return { ok: false, errors: validationErrors };
  const operation = getOperationAST(document, request.operationName ?? undefined);
  if (!operation) {
    const message = request.operationName
      ? `no operation named ${JSON.stringify(request.operationName)} in the document`
      : 'the document holds several operations: give operationName';
    return { ok: false, errors: [new GraphQLError(message)] };
  }
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
  if (coerced.errors) return { ok: false, errors: coerced.errors };
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  const { depth, cost } = measureOperation(schema, operation, fragments, coerced.coerced);
  const limitErrors: GraphQLError[] = [];
  if (depth > QUERY_LIMITS.MAX_DEPTH) {
    limitErrors.push(limitError(`query depth ${depth} exceeds the limit of ${QUERY_LIMITS.MAX_DEPTH} nested fields`));
  }
  if (cost > QUERY_LIMITS.MAX_COST) {
    limitErrors.push(
      limitError(
        `query cost ${cost} exceeds the limit of ${QUERY_LIMITS.MAX_COST} (each field counts once per item it is resolved for; ask for smaller pages with first/last/limit)`,
      ),
    );
  }
  if (limitErrors.length > 0) return { ok: false, errors: limitErrors };
  return {
    ok: true,
    kind: operation.operation,
    args: {
      schema,
      document,
      operationName: request.operationName ?? undefined,
      variableValues: request.variables ?? {},
      contextValue,
    },
  };
}

function limitError(message: string): GraphQLError {
  const original = new GraphqlLimitError(message);
  return new GraphQLError(message, { originalError: original, extensions: { code: original.graphqlCode } });
}

/**
 * The wire form of an error: the message, locations and path as graphql-js gives them,
 * and `extensions.code`: BAD_USER_INPUT or QUERY_TOO_COMPLEX for the local service's
 * own errors, GRAPHQL_VALIDATION_FAILED for documents that do not fit the schema,
 * INTERNAL_SERVER_ERROR for anything unexpected.
 */
export function formatError(error: GraphQLError): GraphQLFormattedError {
  const formatted = error.toJSON();
  const original = error.originalError;
  let code: string;
  if (original instanceof GraphqlError) code = original.graphqlCode;
  else if (typeof formatted.extensions?.code === 'string') code = formatted.extensions.code;
  else if (original === undefined || original instanceof GraphQLError) code = error.path ? 'BAD_USER_INPUT' : 'GRAPHQL_VALIDATION_FAILED';
  else code = 'INTERNAL_SERVER_ERROR';
  return { ...formatted, extensions: { ...formatted.extensions, code } };
}

export function formatResult(result: ExecutionResult): FormattedExecutionResult {
  return {
    ...(result.errors ? { errors: result.errors.map(formatError) } : {}),
    ...('data' in result ? { data: result.data } : {}),
  };
}

/** Runs a prepared query or mutation. */
export async function executePrepared(args: ExecutionArgs): Promise<FormattedExecutionResult> {
  return formatResult(await execute(args));
}
