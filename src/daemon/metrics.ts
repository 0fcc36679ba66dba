import { errorMessage } from '../errors.js';
import type { Logger } from '../log/index.js';
import type { MetricsServer } from '../metrics/index.js';
import type { Queue } from '../queue/index.js';
import type { RuntimeSnapshot } from '../status/runtime.js';
import type { Component } from './component.js';
import type { EventBus } from './events.js';

/**
 * `metrics.listen`: Prometheus metrics, /healthz and /readyz. The server's code is
 * loaded only when asked for; a taken port is logged, never fatal (uploads matter more
 * than metrics). It counts what the bus reports: upload outcomes and MQTT publishes.
 */
export class MetricsComponent implements Component {
  readonly name = 'metrics';
  private server: MetricsServer | null = null;

  constructor(
    private readonly listen: string,
    private readonly deps: { queue: Queue; log: Logger; bus: EventBus; snapshot: () => RuntimeSnapshot },
  ) {
    deps.bus.on('outcome', (o) => this.server?.observer.outcome?.(o.kind, o.outcome, o.durationMs, o.bytes));
    deps.bus.on('mqttPublished', (p) => this.server?.mqttObserver.published?.(p.kind, p.count));
    deps.bus.on('mqttFailed', (f) => this.server?.mqttObserver.failed?.(f.stage));
  }

  async start(): Promise<void> {
    const { queue, log, snapshot } = this.deps;
    try {
      const { startMetricsServer } = await import('../metrics/index.js');
      this.server = await startMetricsServer({ listen: this.listen, queue, snapshot, log });
    } catch (err) {
      log.error(`metrics endpoint not started: ${errorMessage(err)}`);
    }
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }
}
