import type { Config } from '../config/index.js';
import { errorMessage } from '../errors.js';
import { releasePlausibleTimeHolds } from '../ingest/time-holds.js';
import type { Logger } from '../log/index.js';
import type { Queue } from '../queue/index.js';
import { clockSyncState, type ClockSyncState } from '../system/clock.js';
import { clockHold, type RequireSync } from '../system/clock-gate.js';
import type { Component } from './component.js';
import type { EventBus } from './events.js';

const CLOCK_CHECK_MS = 60_000;

/**
 * Holds uploads while the clock cannot be trusted (the rule: system/clock-gate.ts),
 * probing the system's sync state once a minute. While the clock is trusted, items held
 * for an implausible time are judged again: a wrong clock at ingest made good times look
 * implausible (see ingest/time-holds.ts).
 */
export class ClockGate implements Component {
  readonly name = 'clock gate';
  state: ClockSyncState = 'unknown';
  private mode: RequireSync;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    config: Config,
    private readonly deps: { queue: Queue; log: Logger; bus: EventBus },
  ) {
    this.mode = config.clock.requireSync;
  }

  /** Why uploads wait for the clock now, or null (the uploader's hold check). */
  readonly hold = (): string | null => clockHold(this.mode, this.state);

  async start(): Promise<void> {
    this.state = await clockSyncState();
    this.reviewTimeHolds();
    this.timer = setInterval(() => void this.check(), CLOCK_CHECK_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  reload(next: Config): void {
    if (next.clock.requireSync === this.mode) return;
    this.mode = next.clock.requireSync;
    this.reviewTimeHolds();
    if (!this.hold()) this.deps.bus.emit('sendable');
  }

  private async check(): Promise<void> {
    const s = await clockSyncState();
    if (s !== this.state) this.deps.log.info({ clock: s }, `system clock: ${s}`);
    this.state = s;
    this.reviewTimeHolds();
    if (!this.hold()) this.deps.bus.emit('sendable');
  }

  private reviewTimeHolds(): void {
    if (this.hold()) return;
    try {
      const released = releasePlausibleTimeHolds(this.deps.queue);
      if (released.recordings + released.detections > 0) {
        this.deps.log.info(released, 'items held for an implausible time are plausible by the clock now: released');
        this.deps.bus.emit('sendable');
      }
    } catch (err) {
      this.deps.log.warn(`reviewing held items failed: ${errorMessage(err)}`);
    }
  }
}
