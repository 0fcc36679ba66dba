import type { MqttPublisher } from '../mqtt/index.js';
import { deactivatePublishing } from '../mqtt/presence.js';
import type { Component } from './component.js';
import type { StationContext } from './context.js';

/**
 * MQTT (docs/MQTT.md): a loop of its own over the queue, loaded only when
 * `mqtt.enabled`. Off, with `mqtt.url` still set, what the station left on the broker
 * is removed (the retract finishes before the daemon stops).
 */
export class MqttComponent implements Component {
  readonly name = 'mqtt';
  private publisher: MqttPublisher | null = null;
  private retract: Promise<unknown> | null = null;

  constructor(private readonly ctx: StationContext) {
    ctx.bus.on('queued', () => this.publisher?.notify());
    ctx.bus.on('audited', () => this.publisher?.notify());
    ctx.bus.on('outcome', (o) => {
      if (o.outcome === 'uploaded' || o.outcome === 'reconciled') this.publisher?.notify();
    });
    // Absent from the snapshot while MQTT is off.
    ctx.state.publish('mqtt', () => this.publisher?.status());
  }

  async start(): Promise<void> {
    const { queue, log, bus, state } = this.ctx;
    const config = this.ctx.config.current;
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
      snapshot: () => state.snapshot(),
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
}
