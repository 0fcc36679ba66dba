import type { Config } from '../config/index.js';
import { errorMessage } from '../errors.js';
import { spoolUsage } from '../queue/index.js';
import type { RuntimeSnapshot } from '../runtime/snapshot.js';
import { diskFree, isDiskLow } from '../system/disk.js';
import type { ChangedKeys } from './changed-keys.js';
import type { Component } from './component.js';
import type { StationContext } from './context.js';

const DISK_CHECK_MS = 60_000;

export type DiskState = RuntimeSnapshot['disk'];

/**
 * Measures the free space of `dataDir` once a minute, for the snapshot (the state's
 * `disk`: the encoder's "getting low", the disk-low alert) and logs when it falls below
 * `disk.minFreeMb` and when it is back. (Ingest asks the spool's file system itself
 * before each copy.)
 */
export class DiskMonitor implements Component {
  readonly name = 'disk monitor';
  private state: DiskState = { freeBytes: null, spoolBytes: 0, low: false };
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ctx: StationContext) {
    ctx.state.publish('disk', () => this.state);
  }

  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), DISK_CHECK_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async reload(_next: Config, changed: ChangedKeys): Promise<void> {
    if (changed.has('disk.minFreeMb')) await this.check();
  }

  private async check(): Promise<void> {
    const { log, config, queue } = this.ctx;
    const { dataDir, disk } = config.current;
    try {
      const free = await diskFree(dataDir);
      const low = isDiskLow(free.freeBytes, disk.minFreeMb);
      if (low && !this.state.low) log.error(`free disk space below disk.minFreeMb (${disk.minFreeMb} MB): new audio is not spooled`);
      if (!low && this.state.low) log.info('free disk space is back above disk.minFreeMb: audio is spooled again');
      this.state = { freeBytes: free.freeBytes, spoolBytes: spoolUsage(queue).bytes, low };
    } catch (err) {
      log.warn(`disk check failed: ${errorMessage(err)}`);
    }
  }
}
