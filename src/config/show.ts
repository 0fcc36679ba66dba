import { REDACTED, addSecret, addUrlSecrets, redactHeaderValues, redactUrl, urlPassword } from '../wire/redact.js';
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

/**
 * Adds the config's secrets to the process's registry (src/wire/redact.ts), which every
 * log line, error, `--json` output and shown URL is cleared of: the token, a password in
 * the service's or the broker's URL, and the webhook's and heartbeat's URLs whole (a Home
 * Assistant webhook id or a healthchecks.io uuid is the credential). The secret files
 * (`service.tokenFile`, `mqtt.passwordFile`, `alerts.webhook.secretFile`) are added as
 * they are read (secret-files.ts). Called by every load of the config, before it is used.
 */
export function addConfigSecrets(config: Config): void {
  addSecret(config.service.token, urlPassword(config.service.baseUrl), urlPassword(config.service.graphqlUrl), urlPassword(config.mqtt.url));
  addUrlSecrets(config.alerts.webhook.url);
  addUrlSecrets(config.alerts.heartbeat.url);
}
