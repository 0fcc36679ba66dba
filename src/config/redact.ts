import { REDACTED } from '../log/scrub.js';
import type { Config } from './schema.js';

export { REDACTED };

/**
 * The config as `config show` prints it: the token replaced by `<redacted>` (the
 * token file's path stays, it is no secret), and a password in `mqtt.url`
 * (`mqtt://user:password@host`) too. Returns a copy.
 */
export function redactConfig(config: Config): Config {
  const copy = structuredClone(config);
  if (copy.service.token !== undefined) copy.service.token = REDACTED;
  if (copy.mqtt.url !== null) copy.mqtt.url = redactUrlPassword(copy.mqtt.url);
  return copy;
}

/** The password in a URL's userinfo (decoded), or null; never throws. */
export function urlPassword(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : null;
  } catch {
    return null;
  }
}

/** `url` with the password of its userinfo replaced by `<redacted>` (the user name stays). */
export function redactUrlPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = 'REDACTED';
    return parsed.toString().replace(':REDACTED@', `:${REDACTED}@`);
  } catch {
    return url;
  }
}
