import type { Config } from '../config/index.js';
import type { Logger } from '../log/index.js';
import type { Queue } from '../queue/index.js';
import { SpeciesGateSweep } from '../policy/species-gate-sweep.js';
import { RetentionSweeper } from '../upload/retention.js';
import type { Component } from './component.js';

const SWEEP_MS = 60_000;

/**
 * The periodic sweeps: spool retention and analyzer files after upload
 * (upload/retention.ts), and stale WAVs in the spool's `incoming/` (ingest's pairing).
 * Leftovers of the last run go at start, not a minute later.
 */
export class Housekeeping implements Component {
  readonly name = 'housekeeping';
  readonly retention: RetentionSweeper;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    config: Config,
    private readonly deps: { queue: Queue; log: Logger; sweepIncoming: () => Promise<number>; now?: () => number },
  ) {
    // The species gate's expiry runs first in each sweep: what it drops loses its spool copy in the same pass.
    const speciesGate = (c: Config) => new SpeciesGateSweep(deps.queue, c.filters.minDetectionsPer24h, deps.log);
    this.retention = new RetentionSweeper(deps.queue, config, deps.log, deps.now, speciesGate);
  }

  start(): void {
    void this.retention.sweep();
    this.timer = setInterval(() => {
      void this.deps.sweepIncoming().catch(() => 0);
      void this.retention.sweep();
    }, SWEEP_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  reload(next: Config): void {
    this.retention.reconfigure(next);
  }

  /** Runs every sweep now (tests, `RunningDaemon.housekeeping`). */
  async run(): Promise<void> {
    await this.deps.sweepIncoming();
    await this.retention.sweep();
  }
}
