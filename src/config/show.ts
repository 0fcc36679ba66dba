import { REDACTED, redactHeaderValues, redactUrl } from '../wire/redact.js';
import type { Config } from './schema.js';

/**
 * The config as `config show` prints it, through the one redaction path
 * (`src/wire/redact.ts`): the token replaced by `<redacted>`; every URL reduced to
 * scheme, host and port (a token pasted into one would be in its userinfo, path or
 * query; a Home Assistant webhook's id is its path; a broker URL may hold a password);
 * the webhook's header values redacted (the names stay). The paths of secret files stay:
 * the config only loads when those files exist, so a path is not a pasted token.
 * Returns a copy.
 */
export function redactConfig(config: Config): Config {
  const copy = structuredClone(config);
  if (copy.service.token !== undefined) copy.service.token = REDACTED;
  const { baseUrl, graphqlUrl } = copy.service;
  copy.service.baseUrl = redactUrl(baseUrl);
  copy.service.graphqlUrl = graphqlUrl === `${baseUrl}/graphql` ? `${copy.service.baseUrl}/graphql` : redactUrl(graphqlUrl);
  if (copy.mqtt.url !== null) copy.mqtt.url = redactUrl(copy.mqtt.url);
  const webhook = copy.alerts.webhook;
  if (webhook.url !== null) webhook.url = redactUrl(webhook.url);
  webhook.headers = redactHeaderValues(webhook.headers);
  // A heartbeat URL's path is its check's credential (healthchecks.io, Uptime Kuma's push token).
  const heartbeat = copy.alerts.heartbeat;
  if (heartbeat.url !== null) heartbeat.url = redactUrl(heartbeat.url);
  return copy;
}
