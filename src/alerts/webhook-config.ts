import type { Config } from '../config/index.js';
import { ConfigError } from '../config/errors.js';
import { SecretFileError, readSecretFile } from '../config/secret-files.js';
import type { WebhookOptions } from './webhook.js';

/**
 * The webhook of `alerts.webhook`, its secret read from `alerts.webhook.secretFile`
 * (config/secret-files.ts: a regular file, trimmed). null when no URL is set. A secret
 * file that cannot be read is a config error naming the key, never the file's contents;
 * a file other users can read is reported through `warn`.
 */
export async function webhookFromConfig(
  config: Config,
  configFile: string | null = null,
  warn: (message: string) => void = () => {},
): Promise<WebhookOptions | null> {
  const w = config.alerts.webhook;
  if (!w.url) return null;
  let secret: WebhookOptions['secret'] = null;
  if (w.secretFile) {
    try {
      const file = await readSecretFile('alerts.webhook.secretFile', w.secretFile);
      if (file.looseMode) warn(file.looseMode);
      secret = { header: w.secretHeader, prefix: w.secretPrefix, value: file.value };
    } catch (err) {
      if (err instanceof SecretFileError) throw new ConfigError([err.message], configFile, undefined, { cause: err });
      throw err;
    }
  }
  return { url: w.url, headers: w.headers, secret };
}
