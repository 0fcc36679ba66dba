export { LOG_REDACT_PATHS, addLogSecrets, createLogger, type CreateLoggerOptions, type Logger } from './logger.js';
export { REDACTED, expandSecrets, removeSecrets, scrubSecrets } from './scrub.js';
export { scrubValue } from './scrub-value.js';
