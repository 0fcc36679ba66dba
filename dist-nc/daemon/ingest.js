import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync } from 'node:fs';
import { Pairing } from '../ingest/pairing.js';
import { InputWatcher } from '../ingest/watcher.js';
import { createStationPolicy } from '../policy/recording-policy.js';
const STOP_IDLE_MS = 3_000;
export class IngestComponent {
    config;
    ctx;
    deps;
    name = 'ingest';
    pairing;
    watcher;
    policyJson;
    constructor(config, ctx, deps) {
        this.config = config;
        this.ctx = ctx;
        this.deps = deps;
        const { log, bus } = deps;
        this.policyJson = JSON.stringify([config.input.minConfidence, config.privacy, config.filters]);
        this.pairing = new Pairing({
            ctx,
            mode: config.input.format,
            jsonTimeoutMs: config.input.analyzerpiJsonTimeoutSec * 1000,
            recheck: (file, delayMs) => this.watcher.recheck(file, delayMs),
            onQueued: () => bus.emit('queued'),
            onOutcome: (file, outcome) => {
                if (outcome.status === 'queued') {
                    log.info({ file, detections: outcome.newDetections, audio: outcome.audio }, 'recording queued');
                }
                else if (outcome.status === 'error') {
                    log.error({ file, code: outcome.code }, outcome.message);
                }
                else if (outcome.status === 'no-detections') {
                    log.debug({ file }, 'no detection to post (input.minConfidence, filters)');
                }
                if ('problems' in outcome)
                    for (const problem of outcome.problems)
                        log.warn({ file }, problem);
            },
        });
        this.watcher = new InputWatcher({
            dir: config.input.dir,
            stableMs: config.input.stableMs,
            rescanIntervalMs: config.input.rescanIntervalSec * 1000,
            classify: this.pairing.classify,
            isDone: this.pairing.isDone,
            onAppear: this.pairing.onAppear,
            onStable: this.pairing.onStable,
            onSkip: (file, why) => log.warn({ file }, `skipped ${file}: ${why}`),
            onError: (err) => log.error(`watcher: ${err.message}`),
        });
    }
    async start() {
        if (!existsSync(this.config.input.dir)) {
            this.deps.log.warn(`input.dir ${this.config.input.dir} does not exist (yet); waiting for it`);
        }
        await this.watcher.start();
        await this.pairing.sweepIncoming();
    }
    reload(next) {
        const policy = JSON.stringify([next.input.minConfidence, next.privacy, next.filters]);
        if (policy !== this.policyJson) {
            this.policyJson = policy;
            this.ctx.policy = createStationPolicy(next);
            this.deps.log.info('the station policies changed (input.minConfidence, privacy, filters): applied to the next recording');
        }
        this.ctx.minFreeMb = next.disk.minFreeMb;
        this.ctx.maxResultFileBytes = next.input.maxResultFileMb * 1024 * 1024;
        this.ctx.lat = next.station.latitude ?? null;
        this.ctx.lon = next.station.longitude ?? null;
    }
    async stop() {
        await this.watcher.close();
        await Promise.race([this.pairing.idle(), delay(STOP_IDLE_MS)]);
        await this.pairing.close();
    }
}
const delay = (ms) => sleep(ms, undefined, { ref: false });
