/** The typed REST V1 client of the service and its errors (the token redaction is src/wire/redact.ts). */
export { ServiceClient, createServiceClient } from './client.js';
export type { SoundscapeInfoQuery, UploadSoundscapeArgs } from './client.js';
export type { CallArg, CallOptions, ResponseInfo, ServiceClientOptions } from './transport.js';
export {
  ApiError,
  HttpStatusError,
  NetworkError,
  OutcomeUnknownError,
  ServiceRejectedError,
} from './errors.js';
export type { ApiErrorCode, HttpErrorDetails } from './errors.js';
export { buildQuery } from './query.js';
export { parseRetryAfter } from './response.js';
export { toId, toNumber } from './normalize.js';
export * from '../wire/types.js';
