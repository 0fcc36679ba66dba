import { loadConfig, type LoadConfigOptions } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log/index.js';
import type { Component } from './component.js';

/**
 * A reload (a changed config or token file, SIGHUP): reads the config again and hands
 * the keys that apply at once (reload-keys.ts) to every component in start order; each
 * applies what it owns. Keys that changed and need a restart are named in one line,
 * never with their values (the token and secrets are keys too). An invalid config
 * changes nothing.
 */
export async function reloadConfig(
  options: LoadConfigOptions,
  running: Config,
  components: readonly Component[],
  log: Logger,
  why: string,
): Promise<void> {
  let next: Config;
  try {
    next = (await loadConfig(options)).config;
  } catch (err) {
    log.error(`${why} but the config is invalid, keeping the running settings and token: ${errorMessage(err)}`);
    return;
  }
  log.info(`${why}: reloading the config`);
  // The key table walks the schema: loaded at the first reload, not at every start.
  const { reloadable } = await import('./reload-keys.js');
  const { config, needRestart } = reloadable(running, next);
  if (config.log.level !== log.level) {
    log.level = config.log.level;
    log.info(`log.level is ${config.log.level} now`);
  }
  for (const component of components) await component.reload?.(config);
  if (needRestart.length > 0) log.warn(`these keys changed and apply only after a restart: ${needRestart.join(', ')}`);
}
