import { loadConfig, type LoadConfigOptions } from '../config/index.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log/index.js';
import type { Component } from './component.js';

/**
 * A reload (a changed config or token file, SIGHUP): reads the config again and hands
 * it to every component in start order; each applies what it can change while running.
 * An invalid config changes nothing.
 */
export async function reloadConfig(options: LoadConfigOptions, components: readonly Component[], log: Logger, why: string): Promise<void> {
  let next: Awaited<ReturnType<typeof loadConfig>>;
  try {
    next = await loadConfig(options);
  } catch (err) {
    log.error(`${why} but the config is invalid, keeping the running settings and token: ${errorMessage(err)}`);
    return;
  }
  log.info(`${why}: reloading the config`);
  for (const component of components) await component.reload?.(next.config);
}
