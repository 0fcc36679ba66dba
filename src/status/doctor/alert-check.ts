import { hostname } from 'node:os';
import type { Config } from '../../config/index.js';
import { errorCode, errorMessage } from '../../errors.js';
import { redactUrl } from '../../wire/redact.js';
import { result, type CheckResult } from './types.js';

/**
 * The alert webhook: with `send` (doctor --test-alert) one test notification is
 * POSTed exactly as the daemon would (same payload, headers and secret) and the
 * receiver's answer decides the check; without it the check only says whether a
 * webhook is configured. Only the URL's origin is shown.
 */
export async function alertCheck(config: Config, configFile: string | null, send: boolean): Promise<CheckResult> {
  const title = 'alert webhook';
  if (!config.alerts.webhook.url) {
    return result('alert', title, send ? 'fail' : 'skip', 'alerts.webhook.url is not set', 'set alerts.webhook.url (ntfy, Gotify, Home Assistant or any JSON webhook) to be told when uploads stop');
  }
  const [{ webhookFromConfig }, { alertPayload, postAlert }] = await Promise.all([
    import('../../alerts/webhook-config.js'),
    import('../../alerts/webhook.js'),
  ]);
  const origin = redactUrl(config.alerts.webhook.url);
  let hook;
  try {
    hook = await webhookFromConfig(config, configFile);
  } catch (err) {
    return result('alert', title, 'fail', errorMessage(err), 'make alerts.webhook.secretFile readable by the agent\'s user');
  }
  if (!send || !hook) return result('alert', title, 'skip', `webhook at ${origin} configured; no test sent`, 'run `station-agent doctor --test-alert` to send a test notification');
  const now = Date.now();
  const station = config.station.settings.name ?? `station-agent@${hostname()}`;
  const payload = alertPayload({ event: 'test', state: 'firing', reason: null, message: 'test notification from station-agent doctor', since: now, at: now }, station, true);
  try {
    await postAlert(hook, payload);
    return result('alert', title, 'pass', `test notification accepted by ${origin}`);
  } catch (err) {
    return result('alert', title, 'fail', errorMessage(err), 'check alerts.webhook.url, its secret (alerts.webhook.secretFile, secretHeader, secretPrefix) and that the receiver is reachable from the station', {
      code: errorCode(err),
    });
  }
}
