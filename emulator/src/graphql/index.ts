export { registerGraphql } from './register.js';
export { buildGraphqlSchema, SCHEMA_SDL } from './schema.js';
export { GRAPHQL_PATH } from './http.js';
export { QUERY_LIMITS } from './limits.js';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './connection.js';
export { encodeId, decodeId, type IdType } from './ids.js';
export { GraphqlError, GraphqlInputError, GraphqlLimitError } from './errors.js';
export { hourOfDay } from './queries/local-time.js';
export { continentOf, CONTINENTS } from './geo.js';
