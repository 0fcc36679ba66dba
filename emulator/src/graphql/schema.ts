import {
  buildSchema,
  isObjectType,
  isScalarType,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from './graphql-js.js';
import type { GqlContext } from './context.js';
import { detectionResolvers, sightingResolvers, soundscapeResolvers } from './resolvers/detection.js';
import { queryResolvers } from './resolvers/query.js';
import { speciesNumberResolvers, speciesResolvers, stationCountResolvers } from './resolvers/species.js';
import { sensorsResolvers, stationResolvers } from './resolvers/station.js';
import { subscriptionResolvers } from './resolvers/subscription.js';
import type { TypeResolvers } from './resolvers/types.js';
import { SCALARS } from './scalars.js';
import { COMMON_SDL } from './sdl/common.js';
import { OPERATIONS_SDL } from './sdl/operations.js';
import { READINGS_SDL } from './sdl/readings.js';
import { TYPES_SDL } from './sdl/types.js';

/**
 * The schema of the local service's GraphQL interface, written schema-first: the SDL
 * (the `sdl/` modules, embedded as strings so the build output carries them) is the
 * source of truth for names, types and descriptions; resolvers are attached to it.
 */
export const SCHEMA_SDL = [COMMON_SDL, TYPES_SDL, READINGS_SDL, OPERATIONS_SDL].join('\n');

const RESOLVERS: Record<string, TypeResolvers<never>> = {
  Query: queryResolvers,
  Detection: detectionResolvers,
  Sighting: sightingResolvers,
  Soundscape: soundscapeResolvers,
  Species: speciesResolvers,
  Station: stationResolvers,
  Sensors: sensorsResolvers,
  SpeciesCount: speciesNumberResolvers,
  BinnedSpeciesCount: speciesNumberResolvers,
  SummarySpeciesCount: speciesNumberResolvers,
  Probability: speciesNumberResolvers,
  StationCount: stationCountResolvers,
};

function attach(schema: GraphQLSchema, typeName: string, resolvers: TypeResolvers<never>): void {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`resolvers for ${typeName}, which is not an object type of the SDL`);
  const fields = type.getFields();
  for (const [name, resolve] of Object.entries(resolvers)) {
    const field = fields[name];
    if (!field) throw new Error(`resolver for ${typeName}.${name}, which the SDL does not have`);
    field.resolve = resolve as unknown as GraphQLFieldResolver<unknown, GqlContext>;
  }
}

/** Builds the executable schema (a new one per call; it holds no state). */
export function buildGraphqlSchema(): GraphQLSchema {
  const schema = buildSchema(SCHEMA_SDL);
  for (const [name, behaviour] of Object.entries(SCALARS)) {
    const scalar = schema.getType(name);
    if (!isScalarType(scalar)) throw new Error(`scalar ${name} is missing from the SDL`);
    Object.assign(scalar, behaviour);
  }
  for (const [typeName, resolvers] of Object.entries(RESOLVERS)) attach(schema, typeName, resolvers);
  const subscription = schema.getSubscriptionType()!.getFields().newDetection;
  subscription.subscribe = subscriptionResolvers.newDetection.subscribe;
  subscription.resolve = subscriptionResolvers.newDetection.resolve;
  return schema;
}
