import type { Config } from '../config/index.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log/index.js';
import type { RuntimeSnapshot } from '../status/runtime.js';
import { diskFree, isDiskGettingLow, isDiskLow } from '../system/disk.js';
import type { Component } from './component.js';

const DISK_CHECK_MS = 60_000;

export type DiskState = RuntimeSnapshot['disk'];

/**
 * Measures the free space of `dataDir` once a minute, for the snapshot and the
 * disk-low alert, and logs when it falls below `disk.minFreeMb` and when it is back.
 * (Ingest asks the spool's file system itself before each copy.)
 */
export class DiskMonitor implements Component {
  readonly name = 'disk monitor';
  state: DiskState = { freeBytes: null, spoolBytes: 0, low: false };
  private timer: NodeJS.Timeout | undefined;
  private minFreeMb: number;

  constructor(
    private readonly dataDir: string,
    config: Config,
    private readonly deps: { log: Logger; spoolBytes: () => number },
  ) {
    this.minFreeMb = config.disk.minFreeMb;
  }

  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), DISK_CHECK_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async reload(next: Config): Promise<void> {
    if (next.disk.minFreeMb === this.minFreeMb) return;
    this.minFreeMb = next.disk.minFreeMb;
    await this.check();
  }

  get minFree(): number {
    return this.minFreeMb;
  }

  /** Below twice `disk.minFreeMb` at the last check (system/disk.ts). */
  get gettingLow(): boolean {
    return this.state.freeBytes != null && isDiskGettingLow(this.state.freeBytes, this.minFreeMb);
  }

  private async check(): Promise<void> {
    const { log } = this.deps;
    try {
      const free = await diskFree(this.dataDir);
      const low = isDiskLow(free.freeBytes, this.minFreeMb);
      if (low && !this.state.low) log.error(`free disk space below disk.minFreeMb (${this.minFreeMb} MB): new audio is not spooled`);
      if (!low && this.state.low) log.info('free disk space is back above disk.minFreeMb: audio is spooled again');
      this.state = { freeBytes: free.freeBytes, spoolBytes: this.deps.spoolBytes(), low };
    } catch (err) {
      log.warn(`disk check failed: ${errorMessage(err)}`);
    }
  }
}
