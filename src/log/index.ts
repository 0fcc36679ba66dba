export { LOG_REDACT_PATHS, addLogSecrets, createLogger, type CreateLoggerOptions, type Logger } from './logger.js';
