import { getMeta, setMeta } from '../queue/index.js';
import { LinkPolicy } from '../upload/link-policy.js';
import { bindUploadQueue } from '../upload/upload-queue-sqlite.js';
import { Uploader } from '../upload/uploader.js';
export class UploaderComponent {
    deps;
    name = 'uploader';
    uploader;
    link;
    token;
    linkJson;
    audioWithheld;
    constructor(config, deps) {
        this.deps = deps;
        const { queue, log, bus, client } = deps;
        this.token = config.service.token;
        this.audioWithheld = config.privacy.audio === 'never';
        this.linkJson = JSON.stringify(linkSettings(config));
        this.link = new LinkPolicy(linkSettings(config), { load: () => getMeta(queue, 'audioBudget'), save: (value) => setMeta(queue, 'audioBudget', value) }, deps.now);
        const observer = {
            outcome: (kind, outcome, durationMs, bytes) => bus.emit('outcome', { kind, outcome, durationMs, bytes }),
            tokenAccepted: () => bus.emit('tokenAccepted'),
        };
        this.uploader = new Uploader(bindUploadQueue(queue), client, log, {
            concurrency: config.upload.concurrency,
            backoff: { baseMs: config.upload.backoffBaseMs, maxMs: config.upload.backoffMaxMs },
            probeIntervalMs: config.upload.probeIntervalSec * 1000,
            noSoundscapeAfterMs: config.upload.noSoundscapeAfterSec * 1000,
            reconcileDelayMs: 2 * config.service.timeoutMs,
            stopGraceMs: Math.min(5_000, config.service.timeoutMs),
            link: this.link,
            audioWithheld: () => this.audioWithheld,
            now: deps.now,
            soundscapes: deps.soundscapes,
        }, deps.hold, observer);
        bus.on('queued', () => this.uploader.notify());
        bus.on('sendable', () => this.uploader.notify());
    }
    start() {
        this.uploader.start();
    }
    async stop() {
        await this.uploader.stop();
        this.link.audioDone();
    }
    reload(next) {
        if ((next.privacy.audio === 'never') !== this.audioWithheld) {
            this.audioWithheld = next.privacy.audio === 'never';
            this.uploader.notify();
        }
        this.uploader.retune({ noSoundscapeAfterMs: next.upload.noSoundscapeAfterSec * 1000 });
        const link = linkSettings(next);
        if (JSON.stringify(link) !== this.linkJson) {
            this.linkJson = JSON.stringify(link);
            this.link.update(link);
            this.deps.log.info('the link settings changed (upload windows, bandwidth cap, data budget): applied');
            this.uploader.notify();
        }
        const token = next.service.token;
        if (!token || token === this.token)
            return;
        this.deps.tokenChanged(token);
        this.deps.client.setToken(token);
        this.token = token;
        this.deps.log.info('the station token changed, using the new one now');
        this.uploader.tokenChanged();
    }
}
function linkSettings(config) {
    const { windows, windowsAudioOnly, audioBytesPerSec, audioBytesPerDay } = config.upload;
    return { windows, windowsAudioOnly, audioBytesPerSec, audioBytesPerDay, zone: config.station.timezone };
}
