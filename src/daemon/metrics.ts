import { errorMessage } from '../errors.js';
import type { MetricsServer } from '../metrics/index.js';
import type { Component } from './component.js';
import type { StationContext } from './context.js';

/**
 * `metrics.listen`: Prometheus metrics, /healthz and /readyz; without it, nothing. The
 * server's code is loaded only when asked for; a taken port is logged, never fatal
 * (uploads matter more than metrics). It counts what the bus reports: upload outcomes
 * and MQTT publishes.
 */
export class MetricsComponent implements Component {
  readonly name = 'metrics';
  private server: MetricsServer | null = null;

  constructor(private readonly ctx: StationContext) {
    ctx.bus.on('outcome', (o) => this.server?.observer.outcome?.(o.kind, o.outcome, o.durationMs, o.bytes));
    ctx.bus.on('mqttPublished', (p) => this.server?.mqttObserver.published?.(p.kind, p.count));
    ctx.bus.on('mqttFailed', (f) => this.server?.mqttObserver.failed?.(f.stage));
  }

  async start(): Promise<void> {
    const { queue, log, state } = this.ctx;
    const { listen } = this.ctx.config.current.metrics;
    if (!listen) return;
    try {
      const { startMetricsServer } = await import('../metrics/index.js');
      this.server = await startMetricsServer({ listen, queue, snapshot: () => state.snapshot(), log });
    } catch (err) {
      log.error(`metrics endpoint not started: ${errorMessage(err)}`);
    }
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }
}
