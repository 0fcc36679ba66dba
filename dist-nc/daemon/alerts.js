import { hostname } from 'node:os';
import { getMeta, queueCounts, setMeta } from '../queue/index.js';
const ALERT_CHECK_MS = 10_000;
export class AlertsComponent {
    webhook;
    config;
    deps;
    name = 'alerts';
    monitor = null;
    startedAt = Date.now();
    constructor(webhook, config, deps) {
        this.webhook = webhook;
        this.config = config;
        this.deps = deps;
    }
    async start() {
        if (!this.webhook)
            return;
        const [{ AlertMonitor }, { AlertDelivery }] = await Promise.all([import('../alerts/monitor.js'), import('../alerts/webhook.js')]);
        const { queue, log, link, disk, now } = this.deps;
        const config = () => this.config;
        let linkOpenSince = link.windows.restricted ? this.startedAt : 0;
        let linkWasOpen = true;
        const lastStoredSuccess = getMeta(queue, 'lastSuccessAt') ?? 0;
        this.monitor = new AlertMonitor({
            get station() {
                return config().station.settings.name ?? `station-agent@${hostname()}`;
            },
            holdMs: this.config.alerts.holdSec * 1000,
            minIntervalMs: this.config.alerts.minIntervalSec * 1000,
            intervalMs: this.deps.checkMs ?? ALERT_CHECK_MS,
            now,
            inputs: () => {
                const at = now();
                const verdict = link.verdict(at);
                const linkOpen = verdict.uploads && verdict.audio;
                if (linkOpen && !linkWasOpen)
                    linkOpenSince = at;
                linkWasOpen = linkOpen;
                const counts = queueCounts(queue);
                const waiting = (c) => (c.pending ?? 0) + (c.sending ?? 0) + (c.unknown ?? 0);
                const up = this.deps.uploader();
                return {
                    waiting: waiting(counts.recordings) + waiting(counts.detections),
                    quietSince: Math.max(up.lastSuccessAt ?? lastStoredSuccess, counts.oldestPendingAt ?? 0, linkOpenSince),
                    linkOpen,
                    noUploadMs: config().alerts.noUploadHours * 3_600_000,
                    paused: up.paused,
                    disk: { low: disk.state.low, freeBytes: disk.state.freeBytes, minFreeMb: disk.minFree },
                };
            },
        }, new AlertDelivery(this.webhook, log), {
            load: () => getMeta(queue, 'alerts'),
            save: (records) => setMeta(queue, 'alerts', records),
        }, log);
        this.monitor.start();
    }
    async stop() {
        await this.monitor?.stop();
    }
    reload(next) {
        this.config = next;
        this.monitor?.retime({ holdMs: next.alerts.holdSec * 1000, minIntervalMs: next.alerts.minIntervalSec * 1000 });
    }
}
