import { deactivatePublishing } from '../mqtt/presence.js';
export class MqttComponent {
    config;
    deps;
    name = 'mqtt';
    publisher = null;
    retract = null;
    constructor(config, deps) {
        this.config = config;
        this.deps = deps;
        deps.bus.on('queued', () => this.publisher?.notify());
        deps.bus.on('outcome', (o) => {
            if (o.outcome === 'uploaded' || o.outcome === 'reconciled')
                this.publisher?.notify();
        });
    }
    async start() {
        const { config } = this;
        const { queue, log, bus } = this.deps;
        if (!config.mqtt.enabled) {
            deactivatePublishing(queue);
            if (config.mqtt.url)
                this.retract = import('../mqtt/index.js').then((m) => m.retractFromBroker(config, queue, log));
            return;
        }
        const { MqttPublisher } = await import('../mqtt/index.js');
        this.publisher = new MqttPublisher({
            config,
            queue,
            log,
            snapshot: () => this.deps.snapshot(),
            observer: {
                published: (kind, count) => bus.emit('mqttPublished', { kind, count }),
                failed: (stage) => bus.emit('mqttFailed', { stage }),
            },
        });
        this.publisher.start();
    }
    async stop() {
        await this.publisher?.stop();
        await this.retract;
    }
    status() {
        return this.publisher?.status();
    }
}
