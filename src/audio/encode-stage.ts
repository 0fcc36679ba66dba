import { rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import { errorCode, errorMessage } from '../errors.js';
import { claimForEncoding, markEncoded, markFailed, markRetry, type Queue, type RecordingItem } from '../queue/index.js';
import { backoffDelay, type BackoffOptions } from '../upload/backoff.js';
import { AudioFileError } from './errors.js';
import type { FlacEncoder } from './flac-encoder.js';

/**
 * Encodes spooled WAV recordings to FLAC, one at a time, before they can be
 * uploaded (the service refuses WAV with 415). Each recording is encoded once, into
 * the spool; the WAV copy is removed after the FLAC is safely on disk.
 *
 * Invalid audio fails the recording (its detections then go without a soundscape);
 * an encoder or disk failure is retried later with backoff.
 */
export class EncodeStage {
  private running = false;
  private loopDone: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private current: Promise<unknown> | null = null;

  constructor(
    private readonly queue: Queue,
    private readonly encoder: FlacEncoder,
    private readonly log: Logger,
    private readonly backoff: BackoffOptions,
    private readonly onEncoded: () => void = () => {},
    private readonly idleMs = 30_000,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  notify(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loopDone;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let item: RecordingItem | undefined;
      try {
        item = claimForEncoding(this.queue, { limit: 1 })[0];
      } catch (err) {
        this.log.error({ code: errorCode(err) }, `encoder: queue error: ${errorMessage(err)}`);
      }
      if (item) {
        this.current = this.encodeOne(item);
        await this.current;
        this.current = null;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.idleMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  private async encodeOne(item: RecordingItem): Promise<void> {
    const wav = item.spoolPath;
    if (!wav) return;
    const flac = wav.replace(/\.wav$/i, '') + '.flac';
    try {
      const result = await this.encoder.encode(wav, flac);
      markEncoded(this.queue, item.id, {
        spoolPath: flac,
        filesize: result.bytes,
        durationS: result.durationSec,
        sampleRate: result.sampleRate,
      });
      await rm(wav, { force: true });
      this.log.debug({ item: item.id, bytes: result.bytes, engine: result.engine }, 'recording encoded to FLAC');
      this.onEncoded();
    } catch (err) {
      const message = errorMessage(err);
      if (err instanceof AudioFileError || (err as NodeJS.ErrnoException).code === 'ENOENT') {
        markFailed(this.queue, 'recording', item.id, { error: message, code: errorCode(err) });
        await rm(wav, { force: true });
        this.log.error({ item: item.id, code: errorCode(err) }, `recording not uploadable, its detections go without a soundscape: ${message}`);
        this.onEncoded();
        return;
      }
      const delay = backoffDelay(item.attempts, this.backoff);
      markRetry(this.queue, 'recording', item.id, { error: message, code: errorCode(err), nextAttemptAt: Date.now() + delay });
      this.log.warn({ item: item.id, code: errorCode(err), retryInMs: delay }, `encoding failed, will retry: ${message}`);
    }
  }
}
