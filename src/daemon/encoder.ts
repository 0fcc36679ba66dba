import { isDiskGettingLow } from '../system/disk.js';
import { SpoolCompaction } from '../encode/spool-compaction.js';
import type { Component } from './component.js';
import type { EncodeStep, StationContext } from './context.js';

/**
 * The encode step between the queue and the upload (src/encode, the context's `encode`):
 * the uploader encodes each WAV into memory just before its request, and the spool
 * compaction writes FLAC files only where that pays (a WAV too long for memory, a
 * backlog, a disk running low). The encoder itself (libFLAC's addon in this thread, else
 * the `flac` program, else libflacjs in a worker) is loaded on the first recording.
 * Started before the uploader, stopped after it.
 */
export class EncoderComponent implements Component {
  readonly name = 'encoder';
  private readonly step: EncodeStep;
  private readonly compaction: SpoolCompaction;

  constructor(ctx: StationContext) {
    const { queue, log, bus, state, config } = ctx;
    this.step = ctx.encode;
    this.compaction = new SpoolCompaction(queue, this.step.encoder, log, {
      busy: this.step.busy,
      // A disk getting low (below twice disk.minFreeMb at the last check, system/disk.ts),
      // before ingest stops spooling audio at the limit itself.
      diskLow: () => {
        const free = state.get('disk')?.freeBytes;
        return free != null && isDiskGettingLow(free, config.current.disk.minFreeMb);
      },
      onCompacted: () => bus.emit('sendable'),
    });
    bus.on('queued', () => this.compaction.notify());
  }

  start(): void {
    this.compaction.start();
  }

  /**
   * Stops a running encode rather than wait for it: an hour-long recording takes
   * minutes on a Pi Zero; the recording is simply encoded again after the restart.
   */
  async stop(): Promise<void> {
    this.step.soundscapes.stop();
    const encoderClosed = this.step.encoder.close({ force: true });
    await this.compaction.stop();
    await encoderClosed;
  }
}
