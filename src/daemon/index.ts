import { loadConfig, requireToken, type LoadConfigOptions } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { createLogger, type Logger } from '../log/index.js';
import type { Queue } from '../queue/index.js';
import type { RuntimeSnapshot } from '../runtime/snapshot.js';
import type { UploadObserver } from '../upload/ports.js';
import { AlertsComponent } from './alerts.js';
import { AuditComponent } from './audit.js';
import { ClockGate } from './clock-gate.js';
import { stopInReverse, type Component } from './component.js';
import { ConfigFilesComponent } from './config-files.js';
import { ConfigStore } from './config-store.js';
import { ConfigSyncComponent } from './config-sync.js';
import { createStationContext, type ContextOptions, type StationContext } from './context.js';
import { DiskMonitor } from './disk-monitor.js';
import { EncoderComponent } from './encoder.js';
import { HeartbeatComponent } from './heartbeat.js';
import { Housekeeping } from './housekeeping.js';
import { IngestComponent } from './ingest.js';
import { MetricsComponent } from './metrics.js';
import { MqttComponent } from './mqtt.js';
import { prepare } from './prepare.js';
import { RuntimeReporter } from './runtime-reporter.js';
import { UploaderComponent } from './uploader.js';

/**
 * The daemon's components in start order; stop is the reverse (docs/ARCHITECTURE.md's
 * table, tested against a running daemon's list). Each is built from the context alone.
 * The reporter's last write comes after everything that changes the snapshot has
 * stopped; ingest stops before the stages it feeds; the config files are watched last,
 * so a reload never reaches a component that is not running yet.
 */
const COMPONENTS: readonly (new (ctx: StationContext) => Component)[] = [
  MetricsComponent,
  RuntimeReporter,
  DiskMonitor,
  ClockGate,
  EncoderComponent,
  AlertsComponent,
  MqttComponent,
  UploaderComponent,
  IngestComponent,
  Housekeeping,
  AuditComponent,
  HeartbeatComponent,
  ConfigSyncComponent,
  ConfigFilesComponent,
];

/**
 * The one wiring module of `station-agent run`: loads the config, opens the queue and
 * runs the daemon as a list of components (one file each in this folder). They start in
 * list order and stop in the reverse order, which keeps the queue consistent: no new
 * input first, then finish or abandon what is in flight (abandoned sends become
 * `unknown`), then the last snapshot; the database closes and the lock goes last.
 */
export interface DaemonOptions extends LoadConfigOptions, Pick<ContextOptions, 'now' | 'alertCheckMs' | 'auditCheckMs'> {
  /** Replaces the JSON logger (tests). */
  logger?: Logger;
  /** Called on every upload outcome (metrics). */
  observer?: UploadObserver;
}

export interface RunningDaemon {
  /** The config the daemon started with. */
  config: Config;
  queue: Queue;
  log: Logger;
  /** What every component was built from (tests read the link policy and the state in it). */
  context: StationContext;
  snapshot(): RuntimeSnapshot;
  /** The components' names in start order (stop is the reverse; docs/ARCHITECTURE.md lists them). */
  components: readonly string[];
  /** The running component of that class (tests drive and watch one through it). */
  component<T extends Component>(type: new (ctx: StationContext) => T): T;
  /** Reads the config and token file again (SIGHUP): applies what can change at runtime (config-store.ts). */
  reload(): Promise<void>;
  stop(): Promise<void>;
}

export async function startDaemon(options: DaemonOptions = {}): Promise<RunningDaemon> {
  // The daemon lives for months: a changed config is validated in a child process, so
  // that zod and the schema never take its memory (config/validate-apart.ts).
  const loadOptions: LoadConfigOptions = { validateApart: true, ...options };
  const loaded = await loadConfig(loadOptions);
  const { config } = loaded;
  // Refuses to start without a token (the load put it in the secret registry).
  requireToken(loaded);
  const log = options.logger ?? createLogger({ level: config.log.level });
  for (const warning of loaded.warnings) log.warn(warning);

  const { lock, queue, ingest, webhook } = await prepare(config, loaded.path ?? null, log);
  const store = new ConfigStore(config, loaded.path ?? null, loadOptions, log);
  const ctx = createStationContext({ config: store, queue, log, prepared: { ingest, webhook, lock }, options });
  if (options.observer?.outcome) ctx.bus.on('outcome', (o) => options.observer?.outcome?.(o.kind, o.outcome, o.durationMs, o.bytes));

  const components = COMPONENTS.map((Type) => new Type(ctx));
  for (const component of components) if (component.reload) store.subscribe((next, changed) => component.reload?.(next, changed));
  const started: Component[] = [];
  const stopAll = async () => {
    await stopInReverse(started.splice(0), (name, err) => log.error(`${name} did not stop cleanly: ${errorMessage(err)}`));
    await ctx.client.close().catch(() => {});
    queue.close();
    lock.release();
  };
  try {
    for (const component of components) {
      await component.start();
      started.push(component);
    }
  } catch (err) {
    log.error(`${components[started.length]?.name ?? 'a component'} did not start: ${errorMessage(err)}`);
    await stopAll().catch(() => {});
    throw err;
  }
  ctx.bus.emit('running');
  log.info({ input: config.input.dir, format: config.input.format, dataDir: config.dataDir }, 'station-agent running');

  let stopping: Promise<void> | undefined;
  return {
    config,
    queue,
    log,
    context: ctx,
    snapshot: () => ctx.state.snapshot(),
    components: components.map((c) => c.name),
    component: <T extends Component>(type: new (ctx: StationContext) => T): T => {
      const found = components.find((c): c is T => c instanceof type);
      if (!found) throw new Error(`no ${type.name} among the daemon's components`);
      return found;
    },
    reload: () => store.reload('reload asked (SIGHUP)'),
    stop: () => (stopping ??= stopAll().then(() => log.info('station-agent stopped'))),
  };
}
