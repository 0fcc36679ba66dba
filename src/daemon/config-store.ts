import { loadConfig, type LoadConfigOptions } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log/index.js';
import { ChangedKeys } from './changed-keys.js';

/** Told of every reload that changed something, in the order it subscribed. */
export type ConfigListener = (next: Config, changed: ChangedKeys) => Promise<void> | void;

/**
 * The running config of the daemon, and its one reload path (a changed config or token
 * file, SIGHUP): reads the config again, takes the keys that apply at once
 * (reload-keys.ts) as one diff against the running config, and hands the new config with
 * the changed keys to every listener in the order they subscribed (the components in
 * start order). Keys that changed and need a restart are named in one line, never with
 * their values (the token and secrets are keys too). An invalid config changes nothing.
 */
export class ConfigStore {
  private running: Config;
  private readonly listeners: ConfigListener[] = [];

  constructor(
    config: Config,
    /** The config file, when there is one (the config files component watches it). */
    readonly path: string | null,
    private readonly load: LoadConfigOptions,
    private readonly log: Logger,
  ) {
    this.running = config;
  }

  get current(): Config {
    return this.running;
  }

  subscribe(listener: ConfigListener): void {
    this.listeners.push(listener);
  }

  async reload(why: string): Promise<void> {
    const { log } = this;
    let next: Config;
    try {
      const loaded = await loadConfig(this.load);
      next = loaded.config;
      if (loaded.validationFallback) log.warn(loaded.validationFallback);
    } catch (err) {
      log.error(`${why} but the config is invalid, keeping the running settings and token: ${errorMessage(err)}`);
      return;
    }
    log.info(`${why}: reloading the config`);
    // The key table walks the schema: loaded at the first reload, not at every start.
    const { reloadable } = await import('./reload-keys.js');
    const { config, changed, needRestart } = reloadable(this.running, next);
    this.running = config;
    if (config.log.level !== log.level) {
      log.level = config.log.level;
      log.info(`log.level is ${config.log.level} now`);
    }
    const keys = new ChangedKeys(changed);
    for (const listener of this.listeners) await listener(config, keys);
    if (needRestart.length > 0) log.warn(`these keys changed and apply only after a restart: ${needRestart.join(', ')}`);
  }
}
