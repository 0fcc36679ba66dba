import { existsSync, watch as watchFile, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { createServiceClient, type ServiceClient } from './api/index.js';
import type { ConfigUpdateBody } from './wire/types.js';
import { EncodeStage } from './audio/encode-stage.js';
import { createFlacEncoder, type FlacEncoder } from './audio/flac-encoder.js';
import { loadConfig, requireToken, type Config, type LoadConfigOptions } from './config/index.js';
import { errorMessage } from './errors.js';
import { createIngestContext } from './ingest/context.js';
import { Pairing } from './ingest/pairing.js';
import { InputWatcher } from './ingest/watcher.js';
import { createLogger, type Logger } from './log/index.js';
import { openQueue, recoverInFlight, setMeta, type Queue } from './queue/index.js';
import { RetentionSweeper } from './upload/retention.js';
import { RUNTIME_HEARTBEAT_MS, RUNTIME_META_KEY, type RuntimeSnapshot } from './status/runtime.js';
import { clockSyncState, type ClockSyncState } from './system/clock.js';
import { diskFree } from './system/disk.js';
import { ConfigSync } from './upload/config-sync.js';
import { bindUploadQueue } from './upload/upload-queue-sqlite.js';
import { Uploader } from './upload/uploader.js';
import type { UploadObserver } from './upload/ports.js';

/**
 * The one wiring module of `station-agent run`: loads the config, opens the queue,
 * and starts the watcher (ingest), the FLAC encoder, the uploader, config sync and
 * the housekeeping timers. Everything it starts, `stop()` stops, in the order that
 * keeps the queue consistent: no new input, finish or abandon what is in flight
 * (abandoned sends become `unknown`), then close the database.
 */
export interface DaemonOptions extends LoadConfigOptions {
  /** Replaces the JSON logger (tests). */
  logger?: Logger;
  /** Called on every upload outcome (metrics). */
  observer?: UploadObserver;
}

export interface RunningDaemon {
  config: Config;
  queue: Queue;
  log: Logger;
  uploader: Uploader;
  pairing: Pairing;
  watcher: InputWatcher;
  snapshot(): RuntimeSnapshot;
  /** Resolves when ingest has handed over everything it has seen so far. */
  ingestIdle(): Promise<void>;
  /** Runs the periodic housekeeping now: spool retention, analyzer files after upload, stale incoming WAVs. */
  housekeeping(): Promise<void>;
  stop(): Promise<void>;
}

/** How often the daemon looks whether its snapshot changed in a way status shows. */
const RUNTIME_CHECK_MS = 10_000;
const CLOCK_CHECK_MS = 60_000;
const DISK_CHECK_MS = 60_000;
const SWEEP_MS = 60_000;

export async function startDaemon(options: DaemonOptions = {}): Promise<RunningDaemon> {
  const loaded = await loadConfig(options);
  const { config } = loaded;
  const token = requireToken(loaded);
  const log = options.logger ?? createLogger({ level: config.log.level, token });
  for (const warning of loaded.warnings) log.warn(warning);

  const queue = openQueue(path.join(config.dataDir, 'queue.db'));
  // What can still fail (an unreadable labels file) fails before anything else is started.
  const ctx = await createIngestContext(config, queue, log).catch((err: unknown) => {
    queue.close();
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
  const encoder: FlacEncoder = createFlacEncoder();

  let clock: ClockSyncState = await clockSyncState();
  const holdCheck = () => {
    const mode = config.clock.requireSync;
    if (mode === 'never') return null;
    if (clock === 'unsynchronized' || (mode === 'always' && clock === 'unknown')) {
      return `the system clock is not synchronised (${clock}); uploads wait so that no wrong times are posted`;
    }
    return null;
  };

  let lastPushed: ConfigUpdateBody = {};
  const observer: UploadObserver = {
    outcome: (kind, outcome, ms, bytes) => {
      if (outcome === 'uploaded' || outcome === 'reconciled') lastSuccessDirty = true;
      options.observer?.outcome?.(kind, outcome, ms, bytes);
      metrics?.observer.outcome?.(kind, outcome, ms, bytes);
    },
    // Settings refused with the token are pushed again once the token is accepted.
    tokenAccepted: () => {
      if (configSync.state.state !== 'synced') void configSync.push(lastPushed);
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
    },
    holdCheck,
    observer,
  );
  const encodeStage = new EncodeStage(queue, encoder, log, backoff, () => uploader.notify());

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
    },
    onOutcome: (file, outcome) => {
      if (outcome.status === 'queued') {
        log.info({ file, detections: outcome.newDetections, audio: outcome.audio }, 'recording queued');
      } else if (outcome.status === 'error') {
        log.error({ file, code: outcome.code }, outcome.message);
      } else if (outcome.status === 'no-detections') {
        log.debug({ file }, 'no detection at or above input.minConfidence');
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
  });
  let dbFailures = 0;
  let lastWritten = { at: 0, signature: '' };
  // What an operator cares about; counters that move all the time are left out, so an
  // idle or steadily uploading station writes its snapshot once a minute, not per poll.
  const signature = (s: RuntimeSnapshot) =>
    JSON.stringify([s.uploader.circuit, s.uploader.paused.map((p) => p.reason), s.clock, s.disk.low, s.configSync.state, s.watcher.ready]);
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

  await checkDisk();
  encodeStage.start();
  uploader.start();
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

  const timers: NodeJS.Timeout[] = [
    setInterval(() => writeRuntime(), RUNTIME_CHECK_MS),
    setInterval(() => {
      void clockSyncState().then((s) => {
        if (s !== clock) log.info({ clock: s }, `system clock: ${s}`);
        clock = s;
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

  let configWatcher: FSWatcher | undefined;
  if (loaded.path) {
    let reloadTimer: NodeJS.Timeout | undefined;
    let lastSettings = JSON.stringify(settingsBody(config));
    try {
      // The folder, not the file: editors save by writing a new file and renaming it over the old one.
      const configName = path.basename(loaded.path);
      configWatcher = watchFile(path.dirname(loaded.path), (_event, name) => {
        if (name !== null && name !== configName) return;
        clearTimeout(reloadTimer);
        reloadTimer = setTimeout(() => {
          void loadConfig(options).then(
            (next) => {
              const settings = settingsBody(next.config);
              if (JSON.stringify(settings) === lastSettings) return;
              lastSettings = JSON.stringify(settings);
              lastPushed = settings;
              log.info('config file changed: pushing station settings');
              void configSync.push(settings);
            },
            (err: unknown) => log.error(`config file changed but is invalid, keeping the running settings: ${errorMessage(err)}`),
          );
        }, 500);
      });
    } catch (err) {
      log.warn(`cannot watch the config file for changes: ${errorMessage(err)}`);
    }
  }

  log.info({ input: config.input.dir, format: config.input.format, dataDir: config.dataDir }, 'station-agent running');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      for (const t of timers) clearInterval(t);
      configWatcher?.close();
      configSync.stop();
      await watcher.close();
      await Promise.race([pairing.idle(), delay(3_000)]);
      await pairing.close();
      await uploader.stop();
      // Stop a running encode rather than wait for it: an hour-long recording takes
      // minutes on a Pi Zero; the recording is simply encoded again after the restart.
      const encoderClosed = encoder.close({ force: true });
      await encodeStage.stop();
      await encoderClosed;
      writeRuntime(true);
      await client.close();
      await metrics?.close();
      queue.close();
      log.info('station-agent stopped');
    })());

  return {
    config,
    queue,
    log,
    uploader,
    pairing,
    watcher,
    snapshot,
    ingestIdle: () => pairing.idle(),
    housekeeping: async () => {
      await pairing.sweepIncoming();
      await retention.sweep();
    },
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


