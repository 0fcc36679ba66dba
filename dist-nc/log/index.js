export { LOG_REDACT_KEYS, addLogSecrets, createLogger } from './logger.js';
