import type { GraphQLResolveInfo } from '../graphql-js.js';
import type { GqlContext } from '../context.js';

/**
 * A field resolver. `args` is typed by each resolver itself (graphql-js has checked
 * them against the SDL); `never` here lets any argument type be assigned.
 */
export type Resolver<Parent> = (parent: Parent, args: never, ctx: GqlContext, info: GraphQLResolveInfo) => unknown;

/** The resolvers of one object type; fields without one read the parent's property of the same name. */
export type TypeResolvers<Parent> = Record<string, Resolver<Parent>>;

/** Fields the local service has no source for. */
export const none = (): null => null;
