import { ConfigFilesWatcher } from '../config/watch.js';
import { errorMessage } from '../errors.js';
export class ConfigFilesComponent {
    configPath;
    tokenFile;
    name = 'config files';
    watcher;
    constructor(configPath, tokenFile, deps) {
        this.configPath = configPath;
        this.tokenFile = tokenFile;
        this.watcher = new ConfigFilesWatcher({
            onChange: (files) => {
                const which = files.some((f) => f === configPath) ? 'config file changed' : 'token file changed';
                deps.reload(`${which} (${files.join(', ')})`);
            },
            onError: (file, err) => deps.log.warn(`cannot watch ${file} for changes (send SIGHUP to reload it): ${errorMessage(err)}`),
        });
    }
    start() {
        this.watcher.watch([this.configPath, this.tokenFile]);
    }
    stop() {
        this.watcher.close();
    }
    reload(next) {
        this.tokenFile = next.service.tokenFile;
        this.watcher.watch([this.configPath, this.tokenFile]);
    }
}
