export { createLogger, type CreateLoggerOptions, type Logger } from './logger.js';
