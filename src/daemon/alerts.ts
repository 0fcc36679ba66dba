import { hostname } from 'node:os';
import type { AlertRecords } from '../alerts/alerter.js';
import type { AlertMonitor } from '../alerts/monitor.js';
import type { WebhookOptions } from '../alerts/webhook.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../log/index.js';
import { getMeta, queueCounts, setMeta, type Queue } from '../queue/index.js';
import type { LinkPolicy } from '../upload/link-policy.js';
import type { UploaderStatus } from '../upload/uploader.js';
import type { Component } from './component.js';
import type { DiskMonitor } from './disk-monitor.js';

const ALERT_CHECK_MS = 10_000;

export interface AlertsDeps {
  queue: Queue;
  log: Logger;
  link: LinkPolicy;
  disk: DiskMonitor;
  uploader: () => UploaderStatus;
  now: () => number;
  /** How often the conditions are checked (tests). */
  checkMs?: number;
}

/**
 * Webhook alerts (`alerts.webhook.url`). The alert code is loaded only with a webhook
 * configured: most stations never alert, and an idle daemon's memory is mostly the code
 * it has loaded. The webhook's secret file is read before any component starts
 * (`webhookFromConfig`), so a bad one fails the start like a bad token.
 */
export class AlertsComponent implements Component {
  readonly name = 'alerts';
  monitor: AlertMonitor | null = null;
  private readonly startedAt = Date.now();

  constructor(
    private readonly webhook: WebhookOptions | null,
    private config: Config,
    private readonly deps: AlertsDeps,
  ) {}

  async start(): Promise<void> {
    if (!this.webhook) return;
    const [{ AlertMonitor }, { AlertDelivery }] = await Promise.all([import('../alerts/monitor.js'), import('../alerts/webhook.js')]);
    const { queue, log, link, disk, now } = this.deps;
    const config = () => this.config;
    // The no-uploads clock starts at the later of the last upload, the oldest waiting
    // item's arrival and the link opening fully (waiting for a window is not an outage).
    let linkOpenSince = link.windows.restricted ? this.startedAt : 0;
    let linkWasOpen = true;
    const lastStoredSuccess = getMeta(queue, 'lastSuccessAt') ?? 0;
    this.monitor = new AlertMonitor(
      {
        // Read at each notice: a reload may rename the station (station.settings.name).
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
          if (linkOpen && !linkWasOpen) linkOpenSince = at;
          linkWasOpen = linkOpen;
          const counts = queueCounts(queue);
          const waiting = (c: Record<string, number>) => (c.pending ?? 0) + (c.sending ?? 0) + (c.unknown ?? 0);
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
      },
      new AlertDelivery(this.webhook, log),
      {
        load: () => getMeta(queue, 'alerts') as AlertRecords | undefined,
        save: (records) => setMeta(queue, 'alerts', records),
      },
      log,
    );
    this.monitor.start();
  }

  async stop(): Promise<void> {
    await this.monitor?.stop();
  }

  /** `alerts.noUploadHours` is read at every check; the hold and spacing are handed over. */
  reload(next: Config): void {
    this.config = next;
    this.monitor?.retime({ holdMs: next.alerts.holdSec * 1000, minIntervalMs: next.alerts.minIntervalSec * 1000 });
  }
}
