import type { ServiceClient } from '../api/index.js';
import type { Config } from '../config/index.js';
import type { SoundscapePreparer } from '../encode/soundscape-preparer.js';
import type { Logger } from '../log/index.js';
import { getMeta, setMeta, type Queue } from '../queue/index.js';
import { LinkPolicy, type LinkSettings } from '../upload/link-policy.js';
import type { UploadObserver } from '../upload/ports.js';
import { bindUploadQueue } from '../upload/upload-queue-sqlite.js';
import { Uploader, type HoldCheck } from '../upload/uploader.js';
import type { Component } from './component.js';
import type { EventBus } from './events.js';

export interface UploaderDeps {
  queue: Queue;
  log: Logger;
  bus: EventBus;
  client: ServiceClient;
  /** Holds every upload while it returns a reason (the clock gate). */
  hold: HoldCheck;
  /** The wall clock of the link policy (windows, budget); tests move it. */
  now: () => number;
  /** A new token is also a secret the logger must redact. */
  tokenChanged: (token: string) => void;
  /** The encode step: WAVs encoded into memory just before their upload. */
  soundscapes: SoundscapePreparer;
}

/**
 * The upload loop (upload/uploader.ts) with the link policy it asks (windows, data
 * budget, bandwidth cap). Its outcomes go onto the bus; a changed token is used at once.
 */
export class UploaderComponent implements Component {
  readonly name = 'uploader';
  readonly uploader: Uploader;
  readonly link: LinkPolicy;
  private token: string | undefined;
  private linkJson: string;
  /** `privacy.audio: never`: no soundscape is claimed, also of recordings queued before (reloadable). */
  private audioWithheld: boolean;

  constructor(config: Config, private readonly deps: UploaderDeps) {
    const { queue, log, bus, client } = deps;
    this.token = config.service.token;
    this.audioWithheld = config.privacy.audio === 'never';
    this.linkJson = JSON.stringify(linkSettings(config));
    this.link = new LinkPolicy(
      linkSettings(config),
      { load: () => getMeta(queue, 'audioBudget'), save: (value) => setMeta(queue, 'audioBudget', value) },
      deps.now,
    );
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
        link: this.link,
        audioWithheld: () => this.audioWithheld,
        // Due times and waits by the expiry clock, like ingest's stamps: a retry put off
        // while the clock is at 2100 must not wait for 2100 once the clock is right.
        now: deps.now,
        soundscapes: deps.soundscapes,
      },
      deps.hold,
      observer,
    );
    bus.on('queued', () => this.uploader.notify());
    bus.on('sendable', () => this.uploader.notify());
  }

  start(): void {
    this.uploader.start();
  }

  async stop(): Promise<void> {
    await this.uploader.stop();
    this.link.audioDone();
  }

  /** New link settings apply to the next claim; a new token is used at once (a pause on a refused token probes with it now). */
  reload(next: Config): void {
    if ((next.privacy.audio === 'never') !== this.audioWithheld) {
      this.audioWithheld = next.privacy.audio === 'never';
      this.uploader.notify();
    }
    this.uploader.retune({ noSoundscapeAfterMs: next.upload.noSoundscapeAfterSec * 1000 });
    const link = linkSettings(next);
    if (JSON.stringify(link) !== this.linkJson) {
      this.linkJson = JSON.stringify(link);
      this.link.update(link);
      this.deps.log.info('the link settings changed (upload windows, bandwidth cap, data budget): applied');
      this.uploader.notify();
    }
    const token = next.service.token;
    if (!token || token === this.token) return;
    this.deps.tokenChanged(token);
    this.deps.client.setToken(token);
    this.token = token;
    this.deps.log.info('the station token changed, using the new one now');
    this.uploader.tokenChanged();
  }
}

function linkSettings(config: Config): LinkSettings {
  const { windows, windowsAudioOnly, audioBytesPerSec, audioBytesPerDay } = config.upload;
  return { windows, windowsAudioOnly, audioBytesPerSec, audioBytesPerDay, zone: config.station.timezone };
}
