import type { Config } from '../config/index.js';
import { clockHold } from '../system/clock-gate.js';
import type { UploadObserver } from '../upload/ports.js';
import { bindUploadQueue } from '../upload/upload-queue-sqlite.js';
import { Uploader } from '../upload/uploader.js';
import type { ChangedKeys } from './changed-keys.js';
import type { Component } from './component.js';
import { linkSettings, type StationContext } from './context.js';

/**
 * The upload loop (upload/uploader.ts) over the context's link policy (windows, data
 * budget, bandwidth cap) and encode step. Uploads wait while the clock gate's published
 * state says so (system/clock-gate.ts); its outcomes go onto the bus; a changed token is
 * used at once.
 */
export class UploaderComponent implements Component {
  readonly name = 'uploader';
  readonly uploader: Uploader;
  /** `privacy.audio: never`: no soundscape is claimed, also of recordings queued before (reloadable). */
  private audioWithheld: boolean;

  constructor(private readonly ctx: StationContext) {
    const { queue, log, bus, client, link, state } = ctx;
    const config = ctx.config.current;
    this.audioWithheld = config.privacy.audio === 'never';
    const observer: UploadObserver = {
      outcome: (kind, outcome, durationMs, bytes) => bus.emit('outcome', { kind, outcome, durationMs, bytes }),
      tokenAccepted: () => bus.emit('tokenAccepted'),
    };
    this.uploader = new Uploader(
      bindUploadQueue(queue),
      client,
      log,
      {
        concurrency: config.upload.concurrency,
        backoff: { baseMs: config.upload.backoffBaseMs, maxMs: config.upload.backoffMaxMs },
        probeIntervalMs: config.upload.probeIntervalSec * 1000,
        noSoundscapeAfterMs: config.upload.noSoundscapeAfterSec * 1000,
        reconcileDelayMs: 2 * config.service.timeoutMs,
        // A request never takes longer than its timeout, so a short timeout keeps stops short.
        stopGraceMs: Math.min(5_000, config.service.timeoutMs),
        link,
        audioWithheld: () => this.audioWithheld,
        // Due times and waits by the expiry clock, like ingest's stamps: a retry put off
        // while the clock is at 2100 must not wait for 2100 once the clock is right.
        now: ctx.expiry.now,
        soundscapes: ctx.encode.soundscapes,
      },
      () => clockHold(ctx.config.current.clock.requireSync, state.get('clock') ?? 'unknown'),
      observer,
    );
    bus.on('queued', () => this.uploader.notify());
    bus.on('sendable', () => this.uploader.notify());
    state.publish('uploader', () => this.uploader.status());
    state.publish('link', () => link.status());
  }

  start(): void {
    this.uploader.start();
  }

  async stop(): Promise<void> {
    await this.uploader.stop();
    this.ctx.link.audioDone();
  }

  /** New link settings apply to the next claim; a new token is used at once (a pause on a refused token probes with it now). */
  reload(next: Config, changed: ChangedKeys): void {
    const { log, link } = this.ctx;
    if (changed.has('privacy.audio')) {
      this.audioWithheld = next.privacy.audio === 'never';
      this.uploader.notify();
    }
    this.uploader.retune({ noSoundscapeAfterMs: next.upload.noSoundscapeAfterSec * 1000 });
    if (changed.has('upload.windows', 'upload.windowsAudioOnly', 'upload.audioBytesPerSec', 'upload.audioBytesPerDay')) {
      link.update(linkSettings(next));
      log.info('the link settings changed (upload windows, bandwidth cap, data budget): applied');
      this.uploader.notify();
    }
    // The client and the logger have the new token already (context.ts).
    if (!next.service.token || !changed.has('service.token')) return;
    log.info('the station token changed, using the new one now');
    this.uploader.tokenChanged();
  }
}
