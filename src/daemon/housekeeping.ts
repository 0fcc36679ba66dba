import type { Config } from '../config/index.js';
import { SpeciesGateSweep } from '../policy/species-gate-sweep.js';
import { RetentionSweeper } from '../queue/retention-sweep.js';
import type { Component } from './component.js';
import type { StationContext } from './context.js';

const SWEEP_MS = 60_000;

/**
 * The periodic sweeps: spool retention and analyzer files after upload
 * (queue/retention-sweep.ts), once a minute. Leftovers of the last run go at start, not a
 * minute later.
 */
export class Housekeeping implements Component {
  readonly name = 'housekeeping';
  private readonly retention: RetentionSweeper;
  private timer: NodeJS.Timeout | undefined;

  constructor(ctx: StationContext) {
    const { queue, log } = ctx;
    // The species gate's expiry runs first in each sweep: what it drops loses its spool copy in the same pass.
    const speciesGate = (c: Config) => new SpeciesGateSweep(queue, c.filters.minDetectionsPer24h, log);
    // Files gone from input.dir are forgotten only while it is the folder the daemon holds.
    this.retention = new RetentionSweeper(queue, ctx.config.current, log, ctx.expiry.now, speciesGate, () => ctx.prepared.lock.heldInput());
  }

  start(): void {
    void this.retention.sweep();
    this.timer = setInterval(() => void this.retention.sweep(), SWEEP_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  reload(next: Config): void {
    this.retention.reconfigure(next);
  }

  /** Runs the sweep now (tests). */
  run(): Promise<void> {
    return this.retention.sweep();
  }
}
