import { readFile } from 'node:fs/promises';
import type { Config } from '../config/index.js';
import { ConfigError } from '../config/index.js';
import { fileProblem } from '../config/secret-files.js';
import type { WebhookOptions } from './webhook.js';

/**
 * The webhook of `alerts.webhook`, its secret read from `alerts.webhook.secretFile`
 * (trimmed). null when no URL is set. A secret file that cannot be read is a config
 * error naming the key and the file, never its contents.
 */
export async function webhookFromConfig(config: Config, configFile: string | null = null): Promise<WebhookOptions | null> {
  const w = config.alerts.webhook;
  if (!w.url) return null;
  let secret: WebhookOptions['secret'] = null;
  if (w.secretFile) {
    let text: string;
    try {
      text = (await readFile(w.secretFile, 'utf8')).trim();
    } catch (err) {
      throw new ConfigError([`alerts.webhook.secretFile ${w.secretFile} ${fileProblem(err)}`], configFile);
    }
    if (text === '') throw new ConfigError([`alerts.webhook.secretFile ${w.secretFile} is empty`], configFile);
    secret = { header: w.secretHeader, prefix: w.secretPrefix, value: text };
  }
  return { url: w.url, headers: w.headers, secret };
}
