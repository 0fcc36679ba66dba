import type { AlertMonitor } from '../alerts/monitor.js';
import { createServiceClient } from '../api/index.js';
import { loadConfig, requireToken, type LoadConfigOptions } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { InputFile, Pairing } from '../ingest/pairing.js';
import type { InputWatcher } from '../ingest/watcher.js';
import { addLogSecrets, createLogger, type Logger } from '../log/index.js';
import type { Queue } from '../queue/index.js';
import type { RuntimeSnapshot } from '../status/runtime.js';
import type { LinkPolicy } from '../upload/link-policy.js';
import type { UploadObserver } from '../upload/ports.js';
import type { Uploader } from '../upload/uploader.js';
import { AlertsComponent } from './alerts.js';
import { ClockGate } from './clock-gate.js';
import { stopInReverse, type Component } from './component.js';
import { ConfigFilesComponent } from './config-files.js';
import { ConfigSyncComponent } from './config-sync.js';
import { DiskMonitor } from './disk-monitor.js';
import { EncoderComponent } from './encoder.js';
import { EventBus } from './events.js';
import { Housekeeping } from './housekeeping.js';
import { IngestComponent } from './ingest.js';
import { MetricsComponent } from './metrics.js';
import { MqttComponent } from './mqtt.js';
import { reloadConfig } from './reload.js';
import { expiryClock, prepare } from './prepare.js';
import { RuntimeReporter } from './runtime-reporter.js';
import { UploaderComponent } from './uploader.js';

/**
 * The one wiring module of `station-agent run`: loads the config, opens the queue and
 * runs the daemon as a list of components (one file each in this folder). They start in
 * list order and stop in the reverse order, which keeps the queue consistent: no new
 * input first, then finish or abandon what is in flight (abandoned sends become
 * `unknown`), then the last snapshot; the database closes and the lock goes last.
 */
export interface DaemonOptions extends LoadConfigOptions {
  /** Replaces the JSON logger (tests). */
  logger?: Logger;
  /** Called on every upload outcome (metrics). */
  observer?: UploadObserver;
  /**
   * The wall clock of the link policy (upload windows, data budget), the expiries
   * (through the expiry clock) and the alerts; tests move it to open a window or let
   * hours pass. The queue's own times stay real.
   */
  now?: () => number;
  /** How often the alert conditions are checked. Default 10 s. */
  alertCheckMs?: number;
}

export interface RunningDaemon {
  config: Config;
  queue: Queue;
  log: Logger;
  uploader: Uploader;
  pairing: Pairing;
  watcher: InputWatcher<InputFile>;
  link: LinkPolicy;
  /** The alerts component, when `alerts.webhook.url` is set. */
  alerts: AlertMonitor | null;
  snapshot(): RuntimeSnapshot;
  /** The components' names in start order (stop is the reverse; docs/ARCHITECTURE.md lists them). */
  components: readonly string[];
  /** Resolves when ingest has handed over everything it has seen so far. */
  ingestIdle(): Promise<void>;
  /** Runs the periodic housekeeping now: spool retention, analyzer files after upload, stale incoming WAVs. */
  housekeeping(): Promise<void>;
  /** Reads the config and token file again (SIGHUP): applies what can change at runtime (see reload.ts). */
  reload(): Promise<void>;
  stop(): Promise<void>;
}

export async function startDaemon(options: DaemonOptions = {}): Promise<RunningDaemon> {
  // The daemon lives for months: a changed config is validated in a child process, so
  // that zod and the schema never take its memory (config/validate-apart.ts).
  const loadOptions: LoadConfigOptions = { validateApart: true, ...options };
  const loaded = await loadConfig(loadOptions);
  const { config } = loaded;
  const token = requireToken(loaded);
  const log = options.logger ?? createLogger({ level: config.log.level, token });
  for (const warning of loaded.warnings) log.warn(warning);

  const { lock, queue, ctx, webhook } = await prepare(config, loaded.path ?? null, log);

  // service.timeoutMs is the limit of every request, soundscape uploads included
  // (the client's own upload default of 120 s would otherwise hold a slot that long).
  const { baseUrl, timeoutMs } = config.service;
  const client = createServiceClient({ baseUrl, token, timeoutMs, uploadTimeoutMs: timeoutMs, connections: config.upload.concurrency });
  const bus = new EventBus();
  if (options.observer?.outcome) bus.on('outcome', (o) => options.observer?.outcome?.(o.kind, o.outcome, o.durationMs, o.bytes));
  const deps = { queue, log, bus };
  const snapshot = (): RuntimeSnapshot => ({
    pid: process.pid,
    startedAt,
    updatedAt: Date.now(),
    uploader: upload.uploader.status(),
    watcher: { ready: ingest.watcher.isReady, pending: ingest.watcher.pendingCount, dir: config.input.dir },
    clock: clock.state,
    disk: disk.state,
    configSync: sync.state,
    ...(mqtt.status() ? { mqtt: mqtt.status() } : {}),
    link: upload.link.status(),
  });
  const startedAt = Date.now();
  const now = options.now ?? Date.now;
  const tokenChanged = (t: string) => (options.logger ? undefined : addLogSecrets(log, t));

  const clock = new ClockGate(config, deps);
  const expiry = expiryClock(queue, log, now, () => clock.state === 'synchronized');
  // Ingest stamps the queue by the expiry clock too: an item queued while the clock is
  // jumped would otherwise be due, and its gate hold expire, only when that time comes.
  const ingest = new IngestComponent(config, { ...ctx, queueNow: expiry.now }, deps);
  const housekeeping = new Housekeeping(config, { ...deps, now: expiry.now, sweepIncoming: () => ingest.pairing.sweepIncoming() });
  const disk = new DiskMonitor(config.dataDir, config, { log, spoolBytes: () => housekeeping.retention.spoolBytes() });
  // A disk getting low (system/disk.ts), before ingest stops spooling audio at the limit itself.
  const encoder = new EncoderComponent(config, { ...deps, diskLow: () => disk.gettingLow });
  const upload = new UploaderComponent(config, { ...deps, client, hold: clock.hold, now: expiry.now, tokenChanged, soundscapes: encoder.soundscapes });
  const mqtt = new MqttComponent(config, { ...deps, snapshot });
  const sync = new ConfigSyncComponent(config, { ...deps, client });
  const alerts = new AlertsComponent(webhook, config, { ...deps, link: upload.link, disk, now: expiry.now, checkMs: options.alertCheckMs, uploader: () => upload.uploader.status() });
  const reporter = new RuntimeReporter({ ...deps, snapshot, lastSuccessAt: () => upload.uploader.status().lastSuccessAt });
  const reload = (why: string) => reloadConfig(loadOptions, config, components, log, why);

  // Start order; stop is the reverse. The reporter's last write comes after everything
  // that changes the snapshot has stopped; ingest stops before the stages it feeds.
  const components: Component[] = [
    ...(config.metrics.listen ? [new MetricsComponent(config.metrics.listen, { ...deps, snapshot })] : []),
    reporter,
    disk,
    clock,
    encoder,
    alerts,
    mqtt,
    upload,
    ingest,
    housekeeping,
    sync,
    new ConfigFilesComponent(loaded.path, config.service.tokenFile, { log, reload: (why) => void reload(why) }),
  ];
  const started: Component[] = [];
  const stopAll = async () => {
    await stopInReverse(started.splice(0), (name, err) => log.error(`${name} did not stop cleanly: ${errorMessage(err)}`));
    await client.close().catch(() => {});
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
  bus.emit('running');
  log.info({ input: config.input.dir, format: config.input.format, dataDir: config.dataDir }, 'station-agent running');

  let stopping: Promise<void> | undefined;
  return {
    config,
    queue,
    log,
    uploader: upload.uploader,
    pairing: ingest.pairing,
    watcher: ingest.watcher,
    link: upload.link,
    alerts: alerts.monitor,
    snapshot,
    components: components.map((c) => c.name),
    ingestIdle: () => ingest.pairing.idle(),
    housekeeping: () => housekeeping.run(),
    reload: () => reload('reload asked (SIGHUP)'),
    stop: () => (stopping ??= stopAll().then(() => log.info('station-agent stopped'))),
  };
}
