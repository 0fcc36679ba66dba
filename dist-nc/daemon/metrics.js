import { errorMessage } from '../errors.js';
export class MetricsComponent {
    listen;
    deps;
    name = 'metrics';
    server = null;
    constructor(listen, deps) {
        this.listen = listen;
        this.deps = deps;
        deps.bus.on('outcome', (o) => this.server?.observer.outcome?.(o.kind, o.outcome, o.durationMs, o.bytes));
        deps.bus.on('mqttPublished', (p) => this.server?.mqttObserver.published?.(p.kind, p.count));
        deps.bus.on('mqttFailed', (f) => this.server?.mqttObserver.failed?.(f.stage));
    }
    async start() {
        const { queue, log, snapshot } = this.deps;
        try {
            const { startMetricsServer } = await import('../metrics/index.js');
            this.server = await startMetricsServer({ listen: this.listen, queue, snapshot, log });
        }
        catch (err) {
            log.error(`metrics endpoint not started: ${errorMessage(err)}`);
        }
    }
    async stop() {
        await this.server?.close();
    }
}
