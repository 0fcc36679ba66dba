import { errorCode, errorMessage } from '../errors.js';
import { getMeta, queueCounts } from '../queue/index.js';
import { addUrlSecrets, redactUrl } from '../wire/redact.js';
import type { Component } from './component.js';
import type { StationContext } from './context.js';

/** A ping has this long in all, or its interval if shorter: a stuck monitor is given up on. */
const PING_TIMEOUT_MS = 10_000;

/**
 * The heartbeat (`alerts.heartbeat.url`; src/alerts/heartbeat.ts): every
 * `alerts.heartbeat.intervalSec`, a ping that says whether the agent is healthy (the
 * alerts' conditions: uploads paused or failing, disk low, the queue not draining; the
 * clock held is a pause). Each ping runs apart from everything else (its own connection
 * and deadline; one at a time, a tick that finds the last one still out skips), so a
 * silent or stuck monitor never delays an upload. Its code is loaded only with a URL set,
 * and the URL is in the secret registry before anything could log it.
 */
export class HeartbeatComponent implements Component {
  readonly name = 'heartbeat';
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | null = null;
  private readonly abort = new AbortController();
  private circuitOpenSince: number | null = null;
  private lastState: 'healthy' | 'failing' | 'unreachable' | null = null;
  private readonly startedAt = Date.now();

  constructor(private readonly ctx: StationContext) {}

  start(): void {
    const { url, intervalSec } = this.ctx.config.current.alerts.heartbeat;
    if (!url) return;
    // Nothing here logs more than the URL's origin; the secret registry removes the rest,
    // should a library's message carry it. The config's load added it; a config handed in did not.
    addUrlSecrets(url);
    this.timer = setInterval(() => void this.beat(), intervalSec * 1000);
    this.timer.unref();
    void this.beat();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.abort.abort();
    await this.inFlight;
  }

  /** One ping now, unless the last is still out (tests call it). */
  beat(): Promise<void> {
    this.inFlight ??= this.ping().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async ping(): Promise<void> {
    const { config, log } = this.ctx;
    const { url, intervalSec } = config.current.alerts.heartbeat;
    if (!url) return;
    const { ping, unhealthyReason } = await import('../alerts/heartbeat.js');
    const reason = unhealthyReason(this.inputs());
    try {
      await ping(url, reason, Math.min(PING_TIMEOUT_MS, intervalSec * 1000), this.abort.signal);
      const state = reason === null ? 'healthy' : 'failing';
      if (state !== this.lastState) {
        if (reason === null) log.info(`heartbeat ${redactUrl(url)}: healthy`);
        else log.warn(`heartbeat ${redactUrl(url)}: fail sent: ${reason}`);
      }
      this.lastState = state;
    } catch (err) {
      if (this.abort.signal.aborted) return;
      if (this.lastState !== 'unreachable') log.warn({ code: errorCode(err) }, `${errorMessage(err)} (the next ping in ${intervalSec} s)`);
      this.lastState = 'unreachable';
    }
  }

  private inputs() {
    const { queue, state, link, expiry, config } = this.ctx;
    const now = expiry.now();
    const up = state.get('uploader');
    const disk = state.get('disk');
    if (up?.circuit === 'open') this.circuitOpenSince ??= now;
    else this.circuitOpenSince = null;
    const counts = queueCounts(queue);
    const waiting = (c: Record<string, number>) => (c.pending ?? 0) + (c.sending ?? 0) + (c.unknown ?? 0);
    const verdict = link.verdict(now);
    return {
      now,
      waiting: waiting(counts.recordings) + waiting(counts.detections),
      quietSince: Math.max(up?.lastSuccessAt ?? getMeta(queue, 'lastSuccessAt') ?? 0, counts.oldestPendingAt ?? 0, this.startedAt),
      linkOpen: verdict.uploads && verdict.audio,
      noUploadMs: config.current.alerts.noUploadHours * 3_600_000,
      paused: up?.paused ?? [],
      disk: { low: disk?.low ?? false, freeBytes: disk?.freeBytes ?? null, minFreeMb: config.current.disk.minFreeMb },
      circuitOpenSince: this.circuitOpenSince,
    };
  }
}
