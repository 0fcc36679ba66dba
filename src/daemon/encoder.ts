import { createFlacEncoder, type FlacCompressionLevel, type FlacEncoder } from '../audio/flac-encoder.js';
import type { Config } from '../config/index.js';
import { SoundscapePreparer } from '../encode/soundscape-preparer.js';
import { SpoolCompaction } from '../encode/spool-compaction.js';
import type { Logger } from '../log/index.js';
import type { Queue } from '../queue/index.js';
import type { Component } from './component.js';
import type { EventBus } from './events.js';

/**
 * The encode step between the queue and the upload (src/encode): the uploader encodes
 * each WAV into memory just before its request (`soundscapes`, handed to it), and the
 * spool compaction writes FLAC files only where that pays (a WAV too long for memory, a
 * backlog, a disk running low). The encoder itself (libFLAC's addon in this thread, else
 * the `flac` program, else libflacjs in a worker) is loaded on the first recording. Started before the uploader, stopped after it.
 */
export class EncoderComponent implements Component {
  readonly name = 'encoder';
  readonly soundscapes: SoundscapePreparer;
  private readonly encoder: FlacEncoder;
  private readonly compaction: SpoolCompaction;

  constructor(config: Config, deps: { queue: Queue; log: Logger; bus: EventBus; diskLow: () => boolean }) {
    this.encoder = createFlacEncoder({
      engine: config.upload.flacEncoder,
      // The schema bounds the level to a whole number from 0 to 8.
      compressionLevel: config.upload.flacCompressionLevel as FlacCompressionLevel,
      // STREAMINFO without the MD5 where libFLAC's addon allows: a third of a level-0
      // encode's CPU; each frame's CRC still guards the FLAC (flac-encode-job.ts, NO_MD5).
      md5: false,
    });
    // One set of the recordings being encoded: the two never take the same one.
    const busy = new Set<number>();
    this.soundscapes = new SoundscapePreparer(this.encoder, deps.log, () => deps.bus.emit('sendable'), { busy });
    this.compaction = new SpoolCompaction(deps.queue, this.encoder, deps.log, {
      busy,
      diskLow: deps.diskLow,
      onCompacted: () => deps.bus.emit('sendable'),
    });
    deps.bus.on('queued', () => this.compaction.notify());
  }

  start(): void {
    this.compaction.start();
  }

  /**
   * Stops a running encode rather than wait for it: an hour-long recording takes
   * minutes on a Pi Zero; the recording is simply encoded again after the restart.
   */
  async stop(): Promise<void> {
    this.soundscapes.stop();
    const encoderClosed = this.encoder.close({ force: true });
    await this.compaction.stop();
    await encoderClosed;
  }
}
