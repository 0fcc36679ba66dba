import type { Config } from '../config/index.js';
import { setMeta } from '../queue/index.js';
import { ConfigSync } from '../upload/config-sync.js';
import type { ConfigUpdateBody } from '../wire/types.js';
import type { ChangedKeys } from './changed-keys.js';
import type { Component } from './component.js';
import type { StationContext } from './context.js';

/**
 * Pushes the station settings (`station.settings`) to the service at start and on every
 * change, and stores the station record the service answers (what `status` shows).
 * Settings refused with the token are pushed again once the token is accepted.
 */
export class ConfigSyncComponent implements Component {
  readonly name = 'config sync';
  private readonly sync: ConfigSync;
  private settings: ConfigUpdateBody;

  constructor(private readonly ctx: StationContext) {
    const { queue, log, bus, client } = ctx;
    const config = ctx.config.current;
    this.settings = settingsBody(config);
    this.sync = new ConfigSync(
      client,
      { file: queue.path, saveStationRecord: (record) => setMeta(queue, 'station', { record, syncedAt: Date.now() }), saveSyncState: () => {} },
      log,
      { baseMs: config.upload.backoffBaseMs, maxMs: config.upload.backoffMaxMs },
    );
    bus.on('tokenAccepted', () => {
      if (this.sync.state.state !== 'synced') void this.sync.push(this.settings);
    });
    ctx.state.publish('configSync', () => this.sync.state);
  }

  start(): void {
    void this.sync.push(this.settings);
  }

  stop(): void {
    this.sync.stop();
  }

  reload(next: Config, changed: ChangedKeys): void {
    if (!changed.has('station.settings.*')) return;
    const settings = settingsBody(next);
    this.settings = settings;
    this.ctx.log.info('the station settings changed: pushing them');
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
