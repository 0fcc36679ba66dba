import { hostname } from 'node:os';
import type { AlertRecords } from '../alerts/alerter.js';
import type { AlertMonitor } from '../alerts/monitor.js';
import type { Config } from '../config/index.js';
import { getMeta, queueCounts, setMeta } from '../queue/index.js';
import type { Component } from './component.js';
import type { StationContext } from './context.js';

const ALERT_CHECK_MS = 10_000;

/**
 * Webhook alerts (`alerts.webhook.url`). The alert code is loaded only with a webhook
 * configured: most stations never alert, and an idle daemon's memory is mostly the code
 * it has loaded. The webhook's secret file is read before any component starts
 * (`webhookFromConfig`, prepare.ts), so a bad one fails the start like a bad token.
 */
export class AlertsComponent implements Component {
  readonly name = 'alerts';
  monitor: AlertMonitor | null = null;
  private readonly startedAt = Date.now();

  constructor(private readonly ctx: StationContext) {}

  async start(): Promise<void> {
    const { webhook } = this.ctx.prepared;
    if (!webhook) return;
    const [{ AlertMonitor }, { AlertDelivery }] = await Promise.all([import('../alerts/monitor.js'), import('../alerts/webhook.js')]);
    const { queue, log, link, state } = this.ctx;
    const now = this.ctx.expiry.now;
    const config = () => this.ctx.config.current;
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
        holdMs: config().alerts.holdSec * 1000,
        minIntervalMs: config().alerts.minIntervalSec * 1000,
        intervalMs: this.ctx.options.alertCheckMs ?? ALERT_CHECK_MS,
        now,
        inputs: () => {
          const at = now();
          const verdict = link.verdict(at);
          const linkOpen = verdict.uploads && verdict.audio;
          if (linkOpen && !linkWasOpen) linkOpenSince = at;
          linkWasOpen = linkOpen;
          const counts = queueCounts(queue);
          const waiting = (c: Record<string, number>) => (c.pending ?? 0) + (c.sending ?? 0) + (c.unknown ?? 0);
          const up = state.get('uploader');
          const disk = state.get('disk');
          return {
            waiting: waiting(counts.recordings) + waiting(counts.detections),
            quietSince: Math.max(up?.lastSuccessAt ?? lastStoredSuccess, counts.oldestPendingAt ?? 0, linkOpenSince),
            linkOpen,
            noUploadMs: config().alerts.noUploadHours * 3_600_000,
            paused: up?.paused ?? [],
            disk: { low: disk?.low ?? false, freeBytes: disk?.freeBytes ?? null, minFreeMb: config().disk.minFreeMb },
            delivery: getMeta(queue, 'audit') ?? null,
          };
        },
      },
      new AlertDelivery(webhook, log),
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
    this.monitor?.retime({ holdMs: next.alerts.holdSec * 1000, minIntervalMs: next.alerts.minIntervalSec * 1000 });
  }
}
