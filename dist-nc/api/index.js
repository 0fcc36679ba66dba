export { ServiceClient, createServiceClient } from './client.js';
export { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_CONNECTIONS, DEFAULT_TIMEOUT_MS, DEFAULT_UPLOAD_TIMEOUT_MS, } from './transport.js';
export { ApiError, HttpStatusError, NetworkError, OutcomeUnknownError, ServiceRejectedError, } from './errors.js';
export { buildQuery } from './query.js';
export { parseRetryAfter } from './response.js';
export { toId, toNumber } from './normalize.js';
export * from '../wire/types.js';
