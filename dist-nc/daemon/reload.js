import { loadConfig } from '../config/load.js';
import { errorMessage } from '../errors.js';
export async function reloadConfig(options, running, components, log, why) {
    let next;
    try {
        next = (await loadConfig(options)).config;
    }
    catch (err) {
        log.error(`${why} but the config is invalid, keeping the running settings and token: ${errorMessage(err)}`);
        return;
    }
    log.info(`${why}: reloading the config`);
    const { reloadable } = await import('./reload-keys.js');
    const { config, needRestart } = reloadable(running, next);
    if (config.log.level !== log.level) {
        log.level = config.log.level;
        log.info(`log.level is ${config.log.level} now`);
    }
    for (const component of components)
        await component.reload?.(config);
    if (needRestart.length > 0)
        log.warn(`these keys changed and apply only after a restart: ${needRestart.join(', ')}`);
}
