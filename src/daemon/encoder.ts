import { EncodeStage } from '../audio/encode-stage.js';
import { createFlacEncoder, type FlacEncoder } from '../audio/flac-encoder.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../log/index.js';
import type { Queue } from '../queue/index.js';
import type { Component } from './component.js';
import type { EventBus } from './events.js';

/**
 * The FLAC encode stage between the queue and the upload: encodes queued soundscapes
 * and tells the uploader when one is ready. The encoder itself (a worker or the `flac`
 * CLI) starts on the first recording.
 */
export class EncoderComponent implements Component {
  readonly name = 'encoder';
  private readonly encoder: FlacEncoder;
  private readonly stage: EncodeStage;

  constructor(config: Config, deps: { queue: Queue; log: Logger; bus: EventBus }) {
    this.encoder = createFlacEncoder({ engine: config.upload.flacEncoder });
    const backoff = { baseMs: config.upload.backoffBaseMs, maxMs: config.upload.backoffMaxMs };
    this.stage = new EncodeStage(deps.queue, this.encoder, deps.log, backoff, () => deps.bus.emit('sendable'));
    deps.bus.on('queued', () => this.stage.notify());
  }

  start(): void {
    this.stage.start();
  }

  /**
   * Stops a running encode rather than wait for it: an hour-long recording takes
   * minutes on a Pi Zero; the recording is simply encoded again after the restart.
   */
  async stop(): Promise<void> {
    const encoderClosed = this.encoder.close({ force: true });
    await this.stage.stop();
    await encoderClosed;
  }
}
