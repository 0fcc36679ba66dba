import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import { Alerter, type AlertRecords } from './alerter.js';
import { activeConditions, type ConditionInputs } from './conditions.js';
import type { AlertDelivery } from './webhook.js';
import { alertPayload } from './webhook.js';

/**
 * The alerts component of the daemon: every `intervalMs` it reads the daemon's state
 * (`inputs()`), lets the `Alerter` decide what to send, persists the alert records
 * when they change, and hands the notices to the webhook's own delivery queue. It
 * never waits for a delivery, so a dead receiver cannot slow anything else.
 */

export interface AlertStore {
  load(): AlertRecords | undefined;
  save(records: AlertRecords): void;
}

export interface AlertMonitorOptions {
  station: string;
  holdMs: number;
  minIntervalMs: number;
  intervalMs: number;
  inputs: () => Omit<ConditionInputs, 'now'>;
  now?: () => number;
}

export class AlertMonitor {
  private readonly alerter: Alerter;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: AlertMonitorOptions,
    private readonly delivery: AlertDelivery,
    private readonly store: AlertStore,
    private readonly log: Logger,
  ) {
    this.now = options.now ?? Date.now;
    this.alerter = new Alerter({ holdMs: options.holdMs, minIntervalMs: options.minIntervalMs }, store.load() ?? {});
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), this.options.intervalMs);
    this.check();
  }

  /** New `alerts.holdSec` and `alerts.minIntervalSec` (a config reload), from the next check on. */
  retime(timing: { holdMs: number; minIntervalMs: number }): void {
    this.alerter.retime(timing);
  }

  /** Evaluates the conditions now (the timer calls it; tests may too). */
  check(): void {
    try {
      const now = this.now();
      const { notices, changed } = this.alerter.evaluate(activeConditions({ ...this.options.inputs(), now }), now);
      if (changed) this.store.save(this.alerter.state);
      for (const notice of notices) {
        this.log.warn({ alert: notice.key, state: notice.state }, `alert ${notice.state}: ${notice.message}`);
        this.delivery.enqueue(alertPayload(notice, this.options.station));
      }
    } catch (err) {
      // A full or locked queue database: the next check tries again.
      this.log.error(`alert check failed: ${errorMessage(err)}`);
    }
  }

  /** Resolves when the notices handed over so far are delivered or given up. */
  idle(): Promise<void> {
    return this.delivery.idle();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.delivery.stop();
  }
}
