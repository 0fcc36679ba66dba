import type { Config } from '../config/index.js';
import { ConfigFilesWatcher } from '../config/watch.js';
import { errorMessage } from '../errors.js';
import type { Component } from './component.js';
import type { StationContext } from './context.js';

/**
 * Watches the config file and the token file (`service.tokenFile`) and asks for a
 * reload when one changes (SIGHUP does the same by hand). Started last, so a reload
 * never reaches a component that is not running yet; stopped first.
 */
export class ConfigFilesComponent implements Component {
  readonly name = 'config files';
  private readonly watcher: ConfigFilesWatcher;
  private readonly configPath: string | null;
  private tokenFile: string | null | undefined;

  constructor(ctx: StationContext) {
    const { config, log } = ctx;
    this.configPath = config.path;
    this.tokenFile = config.current.service.tokenFile;
    this.watcher = new ConfigFilesWatcher({
      onChange: (files) => {
        const which = files.some((f) => f === this.configPath) ? 'config file changed' : 'token file changed';
        void config.reload(`${which} (${files.join(', ')})`);
      },
      onError: (file, err) => log.warn(`cannot watch ${file} for changes (send SIGHUP to reload it): ${errorMessage(err)}`),
    });
  }

  start(): void {
    this.watcher.watch([this.configPath, this.tokenFile]);
  }

  stop(): void {
    this.watcher.close();
  }

  /** The token file may move with a config change. */
  reload(next: Config): void {
    this.tokenFile = next.service.tokenFile;
    this.watcher.watch([this.configPath, this.tokenFile]);
  }
}
