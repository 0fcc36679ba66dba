import { REDACTED } from '../log/scrub.js';
import type { Config } from './schema.js';

export { REDACTED };

/**
 * The config as `config show` prints it: the token replaced by `<redacted>` (the
 * token file's path stays, it is no secret). Returns a copy.
 */
export function redactConfig(config: Config): Config {
  const copy = structuredClone(config);
  if (copy.service.token !== undefined) copy.service.token = REDACTED;
  return copy;
}
