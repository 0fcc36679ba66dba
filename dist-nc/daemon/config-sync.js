import { setMeta } from '../queue/index.js';
import { ConfigSync } from '../upload/config-sync.js';
export class ConfigSyncComponent {
    deps;
    name = 'config sync';
    sync;
    settings;
    constructor(config, deps) {
        this.deps = deps;
        const { queue, log, bus, client } = deps;
        this.settings = settingsBody(config);
        this.sync = new ConfigSync(client, { saveStationRecord: (record) => setMeta(queue, 'station', { record, syncedAt: Date.now() }), saveSyncState: () => { } }, log, { baseMs: config.upload.backoffBaseMs, maxMs: config.upload.backoffMaxMs });
        bus.on('tokenAccepted', () => {
            if (this.sync.state.state !== 'synced')
                void this.sync.push(this.settings);
        });
    }
    get state() {
        return this.sync.state;
    }
    start() {
        void this.sync.push(this.settings);
    }
    stop() {
        this.sync.stop();
    }
    reload(next) {
        const settings = settingsBody(next);
        if (JSON.stringify(settings) === JSON.stringify(this.settings))
            return;
        this.settings = settings;
        this.deps.log.info('the station settings changed: pushing them');
        void this.sync.push(settings);
    }
}
function settingsBody(config) {
    const body = {};
    for (const [key, value] of Object.entries(config.station.settings ?? {})) {
        if (value !== undefined && value !== null)
            body[key] = value;
    }
    return body;
}
