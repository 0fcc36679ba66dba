import { errorMessage } from '../errors.js';
import { Alerter } from './alerter.js';
import { activeConditions } from './conditions.js';
import { alertPayload } from './webhook.js';
export class AlertMonitor {
    options;
    delivery;
    store;
    log;
    alerter;
    now;
    timer;
    constructor(options, delivery, store, log) {
        this.options = options;
        this.delivery = delivery;
        this.store = store;
        this.log = log;
        this.now = options.now ?? Date.now;
        this.alerter = new Alerter({ holdMs: options.holdMs, minIntervalMs: options.minIntervalMs }, store.load() ?? {});
    }
    start() {
        if (this.timer)
            return;
        this.timer = setInterval(() => this.check(), this.options.intervalMs);
        this.check();
    }
    retime(timing) {
        this.alerter.retime(timing);
    }
    check() {
        try {
            const now = this.now();
            const { notices, changed } = this.alerter.evaluate(activeConditions({ ...this.options.inputs(), now }), now);
            if (changed)
                this.store.save(this.alerter.state);
            for (const notice of notices) {
                this.log.warn({ alert: notice.key, state: notice.state }, `alert ${notice.state}: ${notice.message}`);
                this.delivery.enqueue(alertPayload(notice, this.options.station));
            }
        }
        catch (err) {
            this.log.error(`alert check failed: ${errorMessage(err)}`);
        }
    }
    idle() {
        return this.delivery.idle();
    }
    async stop() {
        clearInterval(this.timer);
        this.timer = undefined;
        await this.delivery.stop();
    }
}
