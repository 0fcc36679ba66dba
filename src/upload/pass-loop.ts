import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import type { PassWaker } from './outcomes.js';

/**
 * The uploader's loop: runs a pass, sleeps as long as the pass said (at least 10 ms),
 * and runs the next one, or sooner when woken (new work, a freed slot, outcomes to
 * commit). A queue error (disk full, locked database) must not kill it: it is logged
 * and the pass is tried again after 5 s.
 */
export class PassLoop implements PassWaker {
  private done: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private on = false;

  constructor(private readonly log: Logger) {}

  get running(): boolean {
    return this.on;
  }

  /** `pass` returns how long to sleep before the next pass (ms). */
  start(pass: () => number): void {
    if (this.on) return;
    this.on = true;
    this.done = this.run(pass);
  }

  wake(): boolean {
    if (!this.wakeUp) return false;
    this.wakeUp();
    return true;
  }

  /** No further pass; resolves once the current one ended. */
  async stop(): Promise<void> {
    this.on = false;
    this.wake();
    await this.done;
  }

  private async run(pass: () => number): Promise<void> {
    while (this.on) {
      let waitMs: number;
      try {
        waitMs = pass();
      } catch (err) {
        this.log.error({ err: errorMessage(err) }, 'upload loop: queue error');
        waitMs = 5_000;
      }
      if (!this.on) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(10, waitMs));
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
    }
  }
}
