import type { ServiceClient } from '../api/index.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../log/index.js';
import { setMeta, type Queue } from '../queue/index.js';
import { ConfigSync, type ConfigSyncState } from '../upload/config-sync.js';
import type { ConfigUpdateBody } from '../wire/types.js';
import type { Component } from './component.js';
import type { EventBus } from './events.js';

/**
 * Pushes the station settings (`station.settings`) to the service at start and on every
 * change, and stores the station record the service answers (what `status` shows).
 * Settings refused with the token are pushed again once the token is accepted.
 */
export class ConfigSyncComponent implements Component {
  readonly name = 'config sync';
  private readonly sync: ConfigSync;
  private settings: ConfigUpdateBody;

  constructor(config: Config, private readonly deps: { queue: Queue; log: Logger; bus: EventBus; client: ServiceClient }) {
    const { queue, log, bus, client } = deps;
    this.settings = settingsBody(config);
    this.sync = new ConfigSync(
      client,
      { saveStationRecord: (record) => setMeta(queue, 'station', { record, syncedAt: Date.now() }), saveSyncState: () => {} },
      log,
      { baseMs: config.upload.backoffBaseMs, maxMs: config.upload.backoffMaxMs },
    );
    bus.on('tokenAccepted', () => {
      if (this.sync.state.state !== 'synced') void this.sync.push(this.settings);
    });
  }

  get state(): ConfigSyncState {
    return this.sync.state;
  }

  start(): void {
    void this.sync.push(this.settings);
  }

  stop(): void {
    this.sync.stop();
  }

  reload(next: Config): void {
    const settings = settingsBody(next);
    if (JSON.stringify(settings) === JSON.stringify(this.settings)) return;
    this.settings = settings;
    this.deps.log.info('the station settings changed: pushing them');
    void this.sync.push(settings);
  }
}

/** The settings that are set, as the service's config update takes them. */
function settingsBody(config: Config): ConfigUpdateBody {
  const body: ConfigUpdateBody = {};
  for (const [key, value] of Object.entries(config.station.settings ?? {})) {
    if (value !== undefined && value !== null) (body as Record<string, unknown>)[key] = value;
  }
  return body;
}
