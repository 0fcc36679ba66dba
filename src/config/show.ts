import { REDACTED, redactUrl, redactUrlPassword } from '../wire/redact.js';
import type { Config } from './schema.js';

/**
 * The config as `config show` prints it: the token replaced by `<redacted>`, the
 * service URLs reduced to scheme, host and port (a token pasted into one would be in
 * its userinfo, path or query; see `src/wire/redact.ts`). The token file's path stays:
 * the config only loads when that file exists, so the path is not a pasted token.
 * Returns a copy.
 */
export function redactConfig(config: Config): Config {
  const copy = structuredClone(config);
  if (copy.service.token !== undefined) copy.service.token = REDACTED;
  const { baseUrl, graphqlUrl } = copy.service;
  copy.service.baseUrl = redactUrl(baseUrl);
  copy.service.graphqlUrl = graphqlUrl === `${baseUrl}/graphql` ? `${copy.service.baseUrl}/graphql` : redactUrl(graphqlUrl);
  // The MQTT broker keeps its host and user name (which broker, which account); its password goes.
  if (copy.mqtt.url !== null) copy.mqtt.url = redactUrlPassword(copy.mqtt.url);
  return copy;
}
