import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditReport } from '../audit/report.js';
import { errorMessage } from '../errors.js';
import { getMeta, queueCounts, setMeta, type LastAudit } from '../queue/index.js';
import { isoDate, localFieldsAt, localTimeInZone, midnightAfter } from '../system/zone.js';
import type { Component } from './component.js';
import type { StationContext } from './context.js';

const CHECK_MS = 60_000;
const HOUR_MS = 3_600_000;
/** An audit that failed (the service unreachable) is tried again this much later. */
const RETRY_MS = HOUR_MS;
/** Findings kept in the meta for `status`. */
const KEPT_FINDINGS = 20;

type Trigger = LastAudit['trigger'];

/**
 * The delivery audit in the daemon (src/audit/audit.ts does the work): yesterday once a
 * day from `audit.hour` (the station's local time), and the last hour after an outage
 * (uploads failing, then one succeeding) or a reconciliation of an unknown outcome. It
 * waits until nothing waits in the queue and the link lets everything go (upload windows,
 * the data budget), and paces its reads by the bandwidth cap: it never competes with an
 * upload. The result goes to the queue's meta (`audit`), where `status`, the metrics, the
 * alerts and MQTT read it; the audit's module is loaded at its first run.
 */
export class AuditComponent implements Component {
  readonly name = 'audit';
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private readonly abort = new AbortController();
  /** The last hour is due (after an outage or a reconciliation), and why. */
  private recent: Trigger | null = null;
  private failing = false;
  private retryAt = 0;

  constructor(private readonly ctx: StationContext) {
    ctx.bus.on('outcome', ({ outcome }) => {
      if (outcome === 'reconciled') this.recent = 'reconcile';
      else if (outcome === 'retry' || outcome === 'unknown') this.failing = true;
      else if (outcome === 'uploaded' && this.failing) {
        this.failing = false;
        this.recent ??= 'outage';
      }
    });
  }

  start(): void {
    if (!this.ctx.config.current.audit.enabled) return;
    this.timer = setInterval(() => void this.tick(), this.ctx.options.auditCheckMs ?? CHECK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.abort.abort();
    await this.running?.catch(() => {});
  }

  /** Runs a due audit now, if the queue and the link allow it (the timer's work; tests call it). */
  tick(): Promise<void> {
    this.running ??= this.due()
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async due(): Promise<void> {
    const { config, queue, link, expiry } = this.ctx;
    const now = expiry.now();
    if (now < this.retryAt) return;
    const verdict = link.verdict(now);
    if (!verdict.uploads || !verdict.audio) return;
    // Not while ingest still reads (the first scan at start): an empty queue then is not a drained one.
    const watcher = this.ctx.state.get('watcher');
    if (!watcher?.ready || watcher.pending > 0) return;
    const counts = queueCounts(queue);
    const waiting = (c: Record<string, number>) => (c.pending ?? 0) + (c.sending ?? 0) + (c.unknown ?? 0);
    if (waiting(counts.recordings) + waiting(counts.detections) > 0) return;
    const { audit, station } = config.current;
    const zone = station.timezone;
    const today = localFieldsAt(now, zone);
    const date = isoDate(today);
    const last = getMeta(queue, 'audit');
    if (last?.dailyDate !== date && today.hour >= audit.hour) {
      const midnight = localTimeInZone(midnightAfter(today, 0), zone)?.getTime() ?? now;
      const yesterday = localTimeInZone(midnightAfter(today, -1), zone)?.getTime() ?? midnight - 24 * HOUR_MS;
      await this.run('daily', yesterday, midnight - 1, date);
    } else if (this.recent) {
      const trigger = this.recent;
      this.recent = null;
      await this.run(trigger, now - HOUR_MS, now, last?.dailyDate ?? null);
    }
  }

  private async run(trigger: Trigger, fromMs: number, toMs: number, dailyDate: string | null): Promise<void> {
    const { config, queue, log, client, bus, expiry } = this.ctx;
    const { runAudit } = await import('../audit/audit.js');
    const cap = config.current.upload.audioBytesPerSec;
    let report: AuditReport;
    try {
      report = await runAudit(queue, client, {
        fromMs,
        toMs,
        zone: config.current.station.timezone,
        repair: config.current.audit.repair,
        signal: this.abort.signal,
        // The bandwidth cap holds the audit's answers as it holds audio: a read waits its share.
        pace: cap ? (bytes) => sleep(Math.ceil((bytes / cap) * 1000), undefined, { signal: this.abort.signal }) : undefined,
        now: expiry.now,
      });
    } catch (err) {
      if (this.abort.signal.aborted) return;
      this.retryAt = expiry.now() + RETRY_MS;
      if (trigger !== 'daily') this.recent ??= trigger;
      log.warn(`delivery audit (${trigger}) did not finish, tried again in an hour: ${errorMessage(err)}`);
      return;
    }
    const previous = getMeta(queue, 'audit');
    const { missing, altered, foreign, requeued } = report.totals;
    setMeta(queue, 'audit', {
      at: Date.parse(report.finishedAt),
      trigger,
      from: report.from,
      to: report.to,
      missing,
      altered,
      foreign,
      requeued,
      requests: report.cost.requests,
      bytes: report.cost.bytes,
      findings: report.findings.slice(0, KEPT_FINDINGS).map((f) => ({ kind: f.kind, finding: f.finding, item: f.item, remoteId: f.remoteId })),
      dailyDate,
      runs: (previous?.runs ?? 0) + 1,
      requestsTotal: (previous?.requestsTotal ?? 0) + report.cost.requests,
      bytesTotal: (previous?.bytesTotal ?? 0) + report.cost.bytes,
    });
    bus.emit('audited');
    const summary = { trigger, from: report.from, to: report.to, missing, altered, foreign, requeued, requests: report.cost.requests, bytes: report.cost.bytes };
    if (missing + altered + foreign === 0) log.info(summary, 'delivery audit: the service holds what it acknowledged');
    else {
      log.warn(summary, `delivery audit: ${missing} missing, ${altered} altered, ${foreign} foreign at the service`);
      for (const f of report.findings.slice(0, KEPT_FINDINGS)) log.warn({ finding: f }, `delivery audit: ${f.kind} ${f.item ?? f.remoteId} ${f.finding}`);
    }
    if (requeued > 0) bus.emit('sendable');
  }
}
