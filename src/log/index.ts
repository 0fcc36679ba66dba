export { LOG_REDACT_KEYS, addLogSecrets, createLogger, type CreateLoggerOptions, type Logger } from './logger.js';
