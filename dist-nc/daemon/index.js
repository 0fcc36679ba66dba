import '../system/v8-flags.js';
import { createServiceClient } from '../api/index.js';
import { loadConfig, requireToken } from '../config/load.js';
import { errorMessage } from '../errors.js';
import { addLogSecrets, createLogger } from '../log/index.js';
import { AlertsComponent } from './alerts.js';
import { ClockGate } from './clock-gate.js';
import { stopInReverse } from './component.js';
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
export async function startDaemon(options = {}) {
    const loadOptions = { validateApart: true, ...options };
    const loaded = await loadConfig(loadOptions);
    const { config } = loaded;
    const token = requireToken(loaded);
    const log = options.logger ?? createLogger({ level: config.log.level, token });
    for (const warning of loaded.warnings)
        log.warn(warning);
    const { lock, queue, ctx, webhook } = await prepare(config, loaded.path ?? null, log);
    const { baseUrl, timeoutMs } = config.service;
    const client = createServiceClient({ baseUrl, token, timeoutMs, uploadTimeoutMs: timeoutMs, connections: config.upload.concurrency });
    const bus = new EventBus();
    if (options.observer?.outcome)
        bus.on('outcome', (o) => options.observer?.outcome?.(o.kind, o.outcome, o.durationMs, o.bytes));
    const deps = { queue, log, bus };
    const snapshot = () => ({
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
    const tokenChanged = (t) => (options.logger ? undefined : addLogSecrets(log, t));
    const clock = new ClockGate(config, deps);
    const expiry = expiryClock(queue, log, now, () => clock.state === 'synchronized');
    const ingest = new IngestComponent(config, { ...ctx, queueNow: expiry.now }, deps);
    const housekeeping = new Housekeeping(config, { ...deps, now: expiry.now, sweepIncoming: () => ingest.pairing.sweepIncoming() });
    const disk = new DiskMonitor(config.dataDir, config, { log, spoolBytes: () => housekeeping.retention.spoolBytes() });
    const encoder = new EncoderComponent(config, { ...deps, diskLow: () => disk.gettingLow });
    const upload = new UploaderComponent(config, { ...deps, client, hold: clock.hold, now: expiry.now, tokenChanged, soundscapes: encoder.soundscapes });
    const mqtt = new MqttComponent(config, { ...deps, snapshot });
    const sync = new ConfigSyncComponent(config, { ...deps, client });
    const alerts = new AlertsComponent(webhook, config, { ...deps, link: upload.link, disk, now: expiry.now, checkMs: options.alertCheckMs, uploader: () => upload.uploader.status() });
    const reporter = new RuntimeReporter({ ...deps, snapshot, lastSuccessAt: () => upload.uploader.status().lastSuccessAt });
    const reload = (why) => reloadConfig(loadOptions, config, components, log, why);
    const components = [
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
    const started = [];
    const stopAll = async () => {
        await stopInReverse(started.splice(0), (name, err) => log.error(`${name} did not stop cleanly: ${errorMessage(err)}`));
        await client.close().catch(() => { });
        queue.close();
        lock.release();
    };
    try {
        for (const component of components) {
            await component.start();
            started.push(component);
        }
    }
    catch (err) {
        log.error(`${components[started.length]?.name ?? 'a component'} did not start: ${errorMessage(err)}`);
        await stopAll().catch(() => { });
        throw err;
    }
    bus.emit('running');
    log.info({ input: config.input.dir, format: config.input.format, dataDir: config.dataDir }, 'station-agent running');
    let stopping;
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
