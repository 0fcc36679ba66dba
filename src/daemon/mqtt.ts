import type { Config } from '../config/index.js';
import type { Logger } from '../log/index.js';
import type { MqttPublisher, MqttRuntime } from '../mqtt/index.js';
import { deactivatePublishing } from '../mqtt/presence.js';
import type { Queue } from '../queue/index.js';
import type { RuntimeSnapshot } from '../status/runtime.js';
import type { Component } from './component.js';
import type { EventBus } from './events.js';

/**
 * MQTT (docs/MQTT.md): a loop of its own over the queue, loaded only when
 * `mqtt.enabled`. Off, with `mqtt.url` still set, what the station left on the broker
 * is removed (the retract finishes before the daemon stops).
 */
export class MqttComponent implements Component {
  readonly name = 'mqtt';
  private publisher: MqttPublisher | null = null;
  private retract: Promise<unknown> | null = null;

  constructor(
    private readonly config: Config,
    private readonly deps: { queue: Queue; log: Logger; bus: EventBus; snapshot: () => RuntimeSnapshot },
  ) {
    deps.bus.on('queued', () => this.publisher?.notify());
    deps.bus.on('outcome', (o) => {
      if (o.outcome === 'uploaded' || o.outcome === 'reconciled') this.publisher?.notify();
    });
  }

  async start(): Promise<void> {
    const { config } = this;
    const { queue, log, bus } = this.deps;
    if (!config.mqtt.enabled) {
      deactivatePublishing(queue);
      if (config.mqtt.url) this.retract = import('../mqtt/index.js').then((m) => m.retractFromBroker(config, queue, log));
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

  async stop(): Promise<void> {
    await this.publisher?.stop();
    await this.retract;
  }

  /** For the runtime snapshot; undefined when MQTT is off. */
  status(): MqttRuntime | undefined {
    return this.publisher?.status();
  }
}
