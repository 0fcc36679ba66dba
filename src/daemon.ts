import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { createServiceClient, type ServiceClient } from './api/index.js';
import type { ConfigUpdateBody } from './wire/types.js';
import { EncodeStage } from './audio/encode-stage.js';
import { createFlacEncoder, type FlacEncoder } from './audio/flac-encoder.js';
import { loadConfig, requireToken, type Config, type LoadConfigOptions } from './config/index.js';
import { ConfigFilesWatcher } from './config/watch.js';
import { errorMessage } from './errors.js';
import { createIngestContext } from './ingest/context.js';
import { Pairing } from './ingest/pairing.js';
import { releasePlausibleTimeHolds } from './ingest/time-holds.js';
import { InputWatcher } from './ingest/watcher.js';
import { addLogSecrets, createLogger, type Logger } from './log/index.js';
import { getMeta, openQueue, queueCounts, recoverInFlight, setMeta, type Queue } from './queue/index.js';
import { deactivatePublishing } from './mqtt/presence.js';
import type { AlertRecords } from './alerts/alerter.js';
import type { AlertMonitor } from './alerts/monitor.js';
import { webhookFromConfig } from './alerts/webhook-config.js';
import { LinkPolicy } from './upload/link-policy.js';
import { RetentionSweeper } from './upload/retention.js';
import { RUNTIME_HEARTBEAT_MS, RUNTIME_META_KEY, type RuntimeSnapshot } from './status/runtime.js';
import { clockSyncState, type ClockSyncState } from './system/clock.js';
import { acquireDaemonLock } from './system/daemon-lock.js';
import { diskFree } from './system/disk.js';
import { ConfigSync } from './upload/config-sync.js';
import { bindUploadQueue } from './upload/upload-queue-sqlite.js';
import { Uploader } from './upload/uploader.js';
import type { UploadObserver } from './upload/ports.js';

/**
 * The one wiring module of `station-agent run`: loads the config, opens the queue,
 * and starts the FLAC encoder, the uploader, the MQTT publisher (when enabled), the
 * watcher (ingest), config sync and the housekeeping timers. Everything it starts, `stop()` stops, in the order that
 * keeps the queue consistent: no new input, finish or abandon what is in flight
 * (abandoned sends become `unknown`), then close the database.
 */
export interface DaemonOptions extends LoadConfigOptions {
  /** Replaces the JSON logger (tests). */
  logger?: Logger;
  /** Called on every upload outcome (metrics). */
  observer?: UploadObserver;
  /**
   * The wall clock of the link policy (upload windows, data budget) and the alerts;
   * tests move it to open a window or let hours pass. The queue's own times stay real.
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
  watcher: InputWatcher;
  link: LinkPolicy;
  /** The alerts component, when `alerts.webhook.url` is set. */
  alerts: AlertMonitor | null;
  snapshot(): RuntimeSnapshot;
  /** Resolves when ingest has handed over everything it has seen so far. */
  ingestIdle(): Promise<void>;
  /** Runs the periodic housekeeping now: spool retention, analyzer files after upload, stale incoming WAVs. */
  housekeeping(): Promise<void>;
  /** Reads the config and token file again (SIGHUP): pushes changed station settings, uses a changed token at once. */
  reload(): Promise<void>;
  stop(): Promise<void>;
}

/** How often the daemon looks whether its snapshot changed in a way status shows. */
const RUNTIME_CHECK_MS = 10_000;
const CLOCK_CHECK_MS = 60_000;
const DISK_CHECK_MS = 60_000;
const SWEEP_MS = 60_000;
const ALERT_CHECK_MS = 10_000;

export async function startDaemon(options: DaemonOptions = {}): Promise<RunningDaemon> {
  const loaded = await loadConfig(options);
  const { config } = loaded;
  let token = requireToken(loaded);
  const log = options.logger ?? createLogger({ level: config.log.level, token });
  for (const warning of loaded.warnings) log.warn(warning);

  // One daemon per dataDir, taken before the queue opens: recovery below marks every
  // `sending` item `unknown`, which is only true when no other daemon is sending them.
  const lock = acquireDaemonLock(config.dataDir);
  let queue: Queue;
  try {
    queue = openQueue(path.join(config.dataDir, 'queue.db'));
  } catch (err) {
    lock.release();
    throw err;
  }
  // What can still fail (an unreadable labels file) fails before anything else is started.
  const ctx = await createIngestContext(config, queue, log).catch((err: unknown) => {
    queue.close();
    lock.release();
    throw err;
  });
  // A webhook secret file that cannot be read fails before anything is started, like the token.
  const webhook = await webhookFromConfig(config, loaded.path ?? null).catch((err: unknown) => {
    queue.close();
    lock.release();
    throw err;
  });
  const recovered = recoverInFlight(queue);
  if (recovered.recordings + recovered.detections > 0) {
    log.warn(recovered, 'items interrupted by the last stop will be reconciled with the service before any new post');
  }

  // metrics.listen: Prometheus metrics, /healthz and /readyz. Loaded only when asked
  // for; a taken port is logged, never fatal (uploads matter more than metrics).
  const metricsListen = config.metrics.listen;
  const metrics = metricsListen
    ? await import('./metrics/index.js')
        .then((m) => m.startMetricsServer({ listen: metricsListen, queue, snapshot: () => snapshot(), log }))
        .catch((err: unknown) => {
          log.error(`metrics endpoint not started: ${errorMessage(err)}`);
          return null;
        })
    : null;

  const client: ServiceClient = createServiceClient({
    baseUrl: config.service.baseUrl,
    token,
    timeoutMs: config.service.timeoutMs,
    // service.timeoutMs is the limit of every request, soundscape uploads included
    // (the client's own upload default of 120 s would otherwise hold a slot that long).
    uploadTimeoutMs: config.service.timeoutMs,
    connections: config.upload.concurrency,
  });
  const backoff = { baseMs: config.upload.backoffBaseMs, maxMs: config.upload.backoffMaxMs };
  const encoder: FlacEncoder = createFlacEncoder({ engine: config.upload.flacEncoder });

  let clock: ClockSyncState = await clockSyncState();
  const holdCheck = () => {
    const mode = config.clock.requireSync;
    if (mode === 'never') return null;
    if (clock === 'unsynchronized' || (mode === 'always' && clock === 'unknown')) {
      return `the system clock is not synchronised (${clock}); uploads wait so that no wrong times are posted`;
    }
    return null;
  };

  const wallNow = options.now ?? Date.now;
  const link = new LinkPolicy(
    {
      windows: config.upload.windows,
      windowsAudioOnly: config.upload.windowsAudioOnly,
      audioBytesPerSec: config.upload.audioBytesPerSec,
      audioBytesPerDay: config.upload.audioBytesPerDay,
      zone: config.station.timezone,
    },
    { load: () => getMeta(queue, 'audioBudget'), save: (value) => setMeta(queue, 'audioBudget', value) },
    wallNow,
  );
  // Items held for an implausible time are judged again while the clock is trusted: a
  // wrong clock at ingest made good times look implausible (see ingest/time-holds.ts).
  const reviewTimeHolds = () => {
    if (holdCheck()) return;
    try {
      const released = releasePlausibleTimeHolds(queue);
      if (released.recordings + released.detections > 0) {
        log.info(released, 'items held for an implausible time are plausible by the clock now: released');
        uploader.notify();
      }
    } catch (err) {
      log.warn(`reviewing held items failed: ${errorMessage(err)}`);
    }
  };

  let lastPushed: ConfigUpdateBody = {};
  const observer: UploadObserver = {
    outcome: (kind, outcome, ms, bytes) => {
      if (outcome === 'uploaded' || outcome === 'reconciled') {
        lastSuccessDirty = true;
        mqtt?.notify();
      }
      options.observer?.outcome?.(kind, outcome, ms, bytes);
      metrics?.observer.outcome?.(kind, outcome, ms, bytes);
    },
    // Settings refused with the token are pushed again once the token is accepted.
    tokenAccepted: () => {
      if (configSync.state.state !== 'synced') void configSync.push(lastPushed);
      // The pause is over: status shows it now, not at the next periodic check.
      writeRuntime();
    },
  };
  let lastSuccessDirty = false;
  const uploader = new Uploader(
    bindUploadQueue(queue),
    client,
    log,
    {
      concurrency: config.upload.concurrency,
      backoff,
      probeIntervalMs: config.upload.probeIntervalSec * 1000,
      noSoundscapeAfterMs: config.upload.noSoundscapeAfterSec * 1000,
      reconcileDelayMs: 2 * config.service.timeoutMs,
      // A request never takes longer than its timeout, so a short timeout keeps stops short.
      stopGraceMs: Math.min(5_000, config.service.timeoutMs),
      link,
    },
    holdCheck,
    observer,
  );
  const encodeStage = new EncodeStage(queue, encoder, log, backoff, () => uploader.notify());

  // mqtt: a loop of its own over the queue (src/mqtt), loaded only when enabled. Off,
  // with mqtt.url still set: what the station left on the broker is removed.
  const mqtt = config.mqtt.enabled
    ? new (await import('./mqtt/index.js')).MqttPublisher({
        config,
        queue,
        log,
        snapshot: () => snapshot(),
        observer: { published: (k, n) => metrics?.mqttObserver.published?.(k, n), failed: (stage) => metrics?.mqttObserver.failed?.(stage) },
      })
    : null;
  let mqttRetract: Promise<unknown> | null = null;
  if (!config.mqtt.enabled) {
    deactivatePublishing(queue);
    if (config.mqtt.url) mqttRetract = import('./mqtt/index.js').then((m) => m.retractFromBroker(config, queue, log));
  }

  const pairing = new Pairing({
    ctx,
    mode: config.input.format,
    jsonTimeoutMs: config.input.analyzerpiJsonTimeoutSec * 1000,
    // The watcher is created below; pairing only calls back once it runs.
    recheck: (file, delayMs) => watcher.recheck(file, delayMs),
    onDone: (file) => watcher.forget(file),
    onQueued: () => {
      encodeStage.notify();
      uploader.notify();
      mqtt?.notify();
    },
    onOutcome: (file, outcome) => {
      if (outcome.status === 'queued') {
        log.info({ file, detections: outcome.newDetections, audio: outcome.audio }, 'recording queued');
      } else if (outcome.status === 'error') {
        log.error({ file, code: outcome.code }, outcome.message);
      } else if (outcome.status === 'no-detections') {
        log.debug({ file }, 'no detection to post (input.minConfidence, filters)');
      }
      if ('problems' in outcome) for (const problem of outcome.problems) log.warn({ file }, problem);
    },
  });
  const watcher = new InputWatcher({
    dir: config.input.dir,
    stableMs: config.input.stableMs,
    rescanIntervalMs: config.input.rescanIntervalSec * 1000,
    isRelevant: pairing.isRelevant,
    isDone: pairing.isDone,
    onAppear: pairing.onAppear,
    onStable: pairing.onStable,
    onSkip: (file, why) => log.warn({ file }, `skipped ${file}: ${why}`),
    onError: (err) => log.error(`watcher: ${err.message}`),
  });

  const configSync = new ConfigSync(
    client,
    {
      saveStationRecord: (record) => setMeta(queue, 'station', { record, syncedAt: Date.now() }),
      saveSyncState: () => {},
    },
    log,
    backoff,
  );

  const retention = new RetentionSweeper(queue, config, log);
  let disk: RuntimeSnapshot['disk'] = { freeBytes: null, spoolBytes: 0, low: false };
  const checkDisk = async () => {
    try {
      const free = await diskFree(config.dataDir);
      const low = free.freeBytes < config.disk.minFreeMb * 1024 * 1024;
      if (low && !disk.low) log.error(`free disk space below disk.minFreeMb (${config.disk.minFreeMb} MB): new audio is not spooled`);
      if (!low && disk.low) log.info('free disk space is back above disk.minFreeMb: audio is spooled again');
      disk = { freeBytes: free.freeBytes, spoolBytes: retention.spoolBytes(), low };
    } catch (err) {
      log.warn(`disk check failed: ${errorMessage(err)}`);
    }
  };

  const startedAt = Date.now();
  const snapshot = (): RuntimeSnapshot => ({
    pid: process.pid,
    startedAt,
    updatedAt: Date.now(),
    uploader: uploader.status(),
    watcher: { ready: watcher.isReady, pending: watcher.pendingCount, dir: config.input.dir },
    clock,
    disk,
    configSync: configSync.state,
    ...(mqtt ? { mqtt: mqtt.status() } : {}),
    link: link.status(),
  });
  let dbFailures = 0;
  let lastWritten = { at: 0, signature: '' };
  // What an operator cares about; counters that move all the time are left out, so an
  // idle or steadily uploading station writes its snapshot once a minute, not per poll.
  const signature = (s: RuntimeSnapshot) =>
    JSON.stringify([s.uploader.circuit, s.uploader.paused.map((p) => p.reason), s.clock, s.disk.low, s.configSync.state, s.watcher.ready, s.mqtt?.connected]);
  const writeRuntime = (force = false) => {
    const snap = snapshot();
    const sig = signature(snap);
    if (!force && sig === lastWritten.signature && snap.updatedAt - lastWritten.at < RUNTIME_HEARTBEAT_MS) return;
    try {
      setMeta(queue, RUNTIME_META_KEY, snap);
      lastWritten = { at: snap.updatedAt, signature: sig };
      if (lastSuccessDirty) {
        const at = uploader.status().lastSuccessAt;
        if (at) setMeta(queue, 'lastSuccessAt', at);
        lastSuccessDirty = false;
      }
      dbFailures = 0;
    } catch (err) {
      // Three failed writes in a row: the database is wedged. Exit so systemd restarts us.
      dbFailures++;
      log.error(`cannot write to the queue database: ${errorMessage(err)}`);
      if (dbFailures >= 3) {
        log.fatal('the queue database stays unwritable: exiting for a restart');
        process.exit(70);
      }
    }
  };

  const alerts = webhook ? await createAlerts(webhook) : null;
  // Loaded only with a webhook configured: most stations never alert, and an idle
  // daemon's memory is mostly the code it has loaded.
  async function createAlerts(hook: NonNullable<typeof webhook>): Promise<AlertMonitor> {
    const [{ AlertMonitor }, { AlertDelivery }] = await Promise.all([import('./alerts/monitor.js'), import('./alerts/webhook.js')]);
    // The no-uploads clock starts at the later of the last upload, the oldest waiting
    // item's arrival and the link opening fully (waiting for a window is not an outage).
    let linkOpenSince = link.windows.restricted ? startedAt : 0;
    let linkWasOpen = true;
    const lastStoredSuccess = getMeta(queue, 'lastSuccessAt') ?? 0;
    return new AlertMonitor(
      {
        station: config.station.settings.name ?? `station-agent@${hostname()}`,
        holdMs: config.alerts.holdSec * 1000,
        minIntervalMs: config.alerts.minIntervalSec * 1000,
        intervalMs: options.alertCheckMs ?? ALERT_CHECK_MS,
        now: wallNow,
        inputs: () => {
          const now = wallNow();
          const verdict = link.verdict(now);
          const linkOpen = verdict.uploads && verdict.audio;
          if (linkOpen && !linkWasOpen) linkOpenSince = now;
          linkWasOpen = linkOpen;
          const counts = queueCounts(queue);
          const waiting = (c: Record<string, number>) => (c.pending ?? 0) + (c.sending ?? 0) + (c.unknown ?? 0);
          const up = uploader.status();
          return {
            waiting: waiting(counts.recordings) + waiting(counts.detections),
            quietSince: Math.max(up.lastSuccessAt ?? lastStoredSuccess, counts.oldestPendingAt ?? 0, linkOpenSince),
            linkOpen,
            noUploadMs: config.alerts.noUploadHours * 3_600_000,
            paused: up.paused,
            disk: { low: disk.low, freeBytes: disk.freeBytes, minFreeMb: config.disk.minFreeMb },
          };
        },
      },
      new AlertDelivery(hook, log),
      {
        load: () => getMeta(queue, 'alerts') as AlertRecords | undefined,
        save: (records) => setMeta(queue, 'alerts', records),
      },
      log,
    );
  }

  await checkDisk();
  reviewTimeHolds();
  encodeStage.start();
  uploader.start();
  mqtt?.start();
  if (!existsSync(config.input.dir)) {
    // A card or share mounted late: the watcher and the rescans pick it up when it appears.
    log.warn(`input.dir ${config.input.dir} does not exist (yet); waiting for it`);
  }
  await watcher.start();
  await pairing.sweepIncoming();
  // Leftovers of the last run (spool copies uploaded just before a stop) go at start, not a minute later.
  void retention.sweep();
  lastPushed = settingsBody(config);
  void configSync.push(lastPushed);
  alerts?.start();

  const timers: NodeJS.Timeout[] = [
    setInterval(() => writeRuntime(), RUNTIME_CHECK_MS),
    setInterval(() => {
      void clockSyncState().then((s) => {
        if (s !== clock) log.info({ clock: s }, `system clock: ${s}`);
        clock = s;
        reviewTimeHolds();
        if (!holdCheck()) uploader.notify();
      });
    }, CLOCK_CHECK_MS),
    setInterval(() => void checkDisk(), DISK_CHECK_MS),
    setInterval(() => {
      void pairing.sweepIncoming().catch(() => 0);
      void retention.sweep();
    }, SWEEP_MS),
  ];
  writeRuntime(true);

  // A changed config file or token file is reloaded (SIGHUP too): the station settings
  // are pushed, and a new token is used at once (a pause on a refused token probes with
  // it now). Other keys need a restart.
  let lastSettings = JSON.stringify(settingsBody(config));
  const reload = async (why: string): Promise<void> => {
    let next: Awaited<ReturnType<typeof loadConfig>>;
    try {
      next = await loadConfig(options);
    } catch (err) {
      log.error(`${why} but the config is invalid, keeping the running settings and token: ${errorMessage(err)}`);
      return;
    }
    configFiles.watch([next.path, next.config.service.tokenFile]);
    const settings = settingsBody(next.config);
    if (JSON.stringify(settings) !== lastSettings) {
      lastSettings = JSON.stringify(settings);
      lastPushed = settings;
      log.info(`${why}: pushing station settings`);
      void configSync.push(settings);
    }
    const nextToken = next.config.service.token;
    if (nextToken && nextToken !== token) {
      if (!options.logger) addLogSecrets(log, nextToken);
      client.setToken(nextToken);
      token = nextToken;
      log.info(`${why}: the station token changed, using the new one now`);
      uploader.tokenChanged();
    }
  };
  const configFiles = new ConfigFilesWatcher({
    onChange: (files) => {
      const which = files.some((f) => f === loaded.path) ? 'config file changed' : 'token file changed';
      void reload(`${which} (${files.join(', ')})`);
    },
    onError: (file, err) => log.warn(`cannot watch ${file} for changes (send SIGHUP to reload it): ${errorMessage(err)}`),
  });
  configFiles.watch([loaded.path, config.service.tokenFile]);

  log.info({ input: config.input.dir, format: config.input.format, dataDir: config.dataDir }, 'station-agent running');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      for (const t of timers) clearInterval(t);
      configFiles.close();
      configSync.stop();
      await watcher.close();
      await Promise.race([pairing.idle(), delay(3_000)]);
      await pairing.close();
      await uploader.stop();
      link.audioDone();
      await mqtt?.stop();
      await mqttRetract;
      await alerts?.stop();
      // Stop a running encode rather than wait for it: an hour-long recording takes
      // minutes on a Pi Zero; the recording is simply encoded again after the restart.
      const encoderClosed = encoder.close({ force: true });
      await encodeStage.stop();
      await encoderClosed;
      writeRuntime(true);
      await client.close();
      await metrics?.close();
      queue.close();
      lock.release();
      log.info('station-agent stopped');
    })());

  return {
    config,
    queue,
    log,
    uploader,
    pairing,
    watcher,
    link,
    alerts,
    snapshot,
    ingestIdle: () => pairing.idle(),
    housekeeping: async () => {
      await pairing.sweepIncoming();
      await retention.sweep();
    },
    reload: () => reload('reload asked (SIGHUP)'),
    stop,
  };
}

function settingsBody(config: Config): ConfigUpdateBody {
  const s = config.station.settings ?? {};
  const body: ConfigUpdateBody = {};
  for (const [key, value] of Object.entries(s)) {
    if (value !== undefined && value !== null) (body as Record<string, unknown>)[key] = value;
  }
  return body;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}


