import { EmulatorError } from '../error-base.js';

/**
 * Errors of the GraphQL interface. They reach the client in the standard `errors`
 * array; `extensions.code` carries `graphqlCode` so scripts can branch on it.
 */
export abstract class GraphqlError extends EmulatorError {
  abstract readonly graphqlCode: string;
}

/** An argument that is out of range, of the wrong kind, or does not fit with another one. */
export class GraphqlInputError extends GraphqlError {
  readonly code = 'ERR_GRAPHQL_INPUT' as const;
  readonly graphqlCode = 'BAD_USER_INPUT';
}

/** A query deeper or costlier than the documented limits (see limits.ts). */
export class GraphqlLimitError extends GraphqlError {
  readonly code = 'ERR_GRAPHQL_LIMIT' as const;
  readonly graphqlCode = 'QUERY_TOO_COMPLEX';
}

/** A subscription beyond what one WebSocket connection may hold (see ws.ts WEB_SOCKET_LIMITS). */
export class GraphqlSubscriptionLimitError extends GraphqlError {
  readonly code = 'ERR_GRAPHQL_SUBSCRIPTIONS' as const;
  readonly graphqlCode = 'TOO_MANY_SUBSCRIPTIONS';
}
