import type { Logger } from 'pino';
import { backoffDelay, type BackoffOptions } from '../system/backoff.js';
import type { ItemKind } from '../queue/index.js';
import { AdaptiveConcurrency } from './adaptive-concurrency.js';
import { CircuitBreaker, type CircuitState } from './circuit-breaker.js';
import { decide, type PauseReason } from './decide.js';
import type { Failure } from './outcomes.js';
import type { GateInput } from './planner.js';
import type { UploadApi, UploadObserver } from './ports.js';

/** Something other than the service that holds all uploads (an unsynchronised clock). */
export type HoldCheck = () => string | null;

/** Why uploads are not flowing: the service's verdicts, or the station's own clock. */
export type HoldReason = PauseReason | 'clock-unsynchronized';

export interface HealthOptions {
  /** Most requests in flight; the adaptive limit moves between 1 and this. */
  concurrency: number;
  backoff: BackoffOptions;
  /** How often a paused or tripped uploader probes the service. */
  probeIntervalMs: number;
  /** The least time between an unknown outcome and the lookup that reconciles it (see `UploaderOptions`). */
  reconcileDelayMs?: number;
  now: () => number;
}

/** The uploader's health as status and the registry show it. */
export interface HealthStatus {
  concurrencyLimit: number;
  circuit: CircuitState;
  circuitRetryAt: number | null;
  probes: number;
  paused: { reason: string; message: string; since: number }[];
  lastSuccessAt: number | null;
  lastError: { message: string; code: string; at: number } | null;
}

interface Pause {
  message: string;
  since: number;
  probeAt: number;
}

/**
 * The uploader's health: the circuit breaker, the adaptive concurrency, the pauses (a
 * refused token, a refused soundscape format, the station's clock) and the last success
 * and error. Every outcome moves it here, at once; what the queue records of the outcome
 * waits for its commit (`outcomes.ts`). The planner reads it through {@link gateInput}.
 */
export class UploadHealth {
  private readonly circuit: CircuitBreaker;
  private readonly concurrency: AdaptiveConcurrency;
  private readonly pauses = new Map<HoldReason, Pause>();
  private last: Pick<HealthStatus, 'lastSuccessAt' | 'lastError'> = { lastSuccessAt: null, lastError: null };
  /** The refused token's probe: in flight, or in flight while the token changed (its verdict is about the old one). */
  private tokenProbe: 'idle' | 'running' | 'stale' = 'idle';

  constructor(
    private readonly options: HealthOptions,
    private readonly log: Logger,
    private readonly holdCheck: HoldCheck,
    private readonly observer: UploadObserver,
  ) {
    this.circuit = new CircuitBreaker({
      now: options.now,
      minOpenMs: Math.min(5_000, options.probeIntervalMs),
      maxOpenMs: options.probeIntervalMs,
    });
    // At the configured limit from the start: at half of it, the first recording's detections
    // (a few, claimed together) did not all fit, and their outcomes took two commits (two
    // fsyncs). A 429/503 still halves it at once.
    this.concurrency = new AdaptiveConcurrency(options.concurrency, options.concurrency);
  }

  /** What the planner's gate reads; asks the clock's hold first (a hold shows in status like a pause). */
  gateInput(now: number, requestsOut: number, encodesOut: number): GateInput {
    const hold = this.holdCheck();
    if (hold) {
      if (!this.pauses.has('clock-unsynchronized')) {
        this.log.warn({ pause: 'clock-unsynchronized' }, `uploads held: ${hold}`);
        this.pauses.set('clock-unsynchronized', { message: hold, since: this.options.now(), probeAt: Infinity });
      }
    } else {
      this.pauses.delete('clock-unsynchronized');
    }
    return {
      now,
      probeIntervalMs: this.options.probeIntervalMs,
      held: hold !== null,
      tokenPause: this.pauses.get('token-rejected'),
      tokenProbing: this.tokenProbe !== 'idle',
      circuit: this.circuit.current,
      circuitRetryAt: this.circuit.retryAt,
      // An encode under way holds a slot, and so does one waiting for its claim (see the planner).
      freeSlots: this.concurrency.limit - requestsOut - encodesOut,
    };
  }

  /** The half-open circuit's one probe permit; false when another request has it. */
  takeProbe(): boolean {
    return this.circuit.tryAcquire() === 'probe';
  }

  /** A probe permit taken but not used (nothing was due, or the pass's claim was undone). */
  returnProbe(): void {
    this.circuit.cancelProbe();
  }

  /** Soundscapes paused on a refused format: when one may probe again. */
  get soundscapePause(): { probeAt: number } | undefined {
    return this.pauses.get('soundscape-format-rejected');
  }

  /** A soundscape went out while they are paused: it is the probe, the next waits an interval. */
  soundscapeProbed(now: number): void {
    const pause = this.pauses.get('soundscape-format-rejected');
    if (pause) pause.probeAt = now + this.options.probeIntervalMs;
  }

  /** The station token changed: a pause on a refused token probes with the new one now. Whether there was such a pause. */
  tokenChanged(): boolean {
    const pause = this.pauses.get('token-rejected');
    if (!pause) return false;
    pause.probeAt = 0;
    if (this.tokenProbe === 'running') this.tokenProbe = 'stale';
    return true;
  }

  succeeded(kind: ItemKind): void {
    this.circuit.success();
    this.concurrency.success();
    this.last.lastSuccessAt = this.options.now();
    if (kind === 'recording') this.pauses.delete('soundscape-format-rejected');
  }

  /**
   * The decision table applied to the circuit, the concurrency and the pauses, at once.
   * Returns the decision and when the item may go again (`unknown`: its lookup), for the
   * outcome writer to record.
   */
  failed(err: unknown, kind: ItemKind, attempts: number, started: number, stopping: boolean): Failure {
    const d = decide(err, kind);
    const now = this.options.now();
    const failure = (delayMs: number): Failure => ({ d, delayMs, nextAttemptAt: now + delayMs, elapsedMs: now - started, stopping });
    const { backoff, reconcileDelayMs = 0 } = this.options;
    this.last.lastError = { message: d.message, code: d.code, at: now };
    switch (d.action) {
      case 'retry': {
        if (d.serviceDown) this.circuit.failure();
        else this.circuit.release();
        if (d.throttle) this.concurrency.throttled();
        let delay = backoffDelay(attempts, backoff, d.retryAfterMs);
        if (d.serviceDown && this.circuit.current === 'open') {
          // The service is down, not this item: let it go as soon as the circuit does, so the
          // backlog drains right after an outage instead of each item sitting out its own backoff.
          delay = Math.min(delay, Math.max(0, this.circuit.retryAt - now));
        }
        return failure(delay);
      }
      case 'unknown':
        if (!stopping && d.serviceDown) this.circuit.failure();
        else this.circuit.release();
        return failure(Math.max(reconcileDelayMs, stopping ? 0 : backoffDelay(attempts, backoff)));
      case 'pause':
        this.circuit.release();
        this.pause(d.reason, d.message);
        return failure(0);
      case 'fail':
        this.circuit.release();
        return failure(0);
    }
  }

  /** Probes the service with the refused token (a cheap authenticated read): uploads resume once it is accepted. */
  async probeToken(api: UploadApi, signal: AbortSignal): Promise<void> {
    this.tokenProbe = 'running';
    try {
      await api.probe(signal);
      this.pauses.delete('token-rejected');
      this.log.info('the service accepts the station token again: uploads resume');
      this.observer.tokenAccepted?.();
    } catch (err) {
      const d = decide(err, 'detection');
      const pause = this.pauses.get('token-rejected');
      if (pause) pause.probeAt = this.tokenChangedMeanwhile() ? 0 : this.options.now() + this.options.probeIntervalMs;
      if (d.action !== 'pause') this.log.debug({ code: d.code }, 'probe failed');
    } finally {
      this.tokenProbe = 'idle';
    }
  }

  status(): HealthStatus {
    return {
      concurrencyLimit: this.concurrency.limit,
      circuit: this.circuit.current,
      circuitRetryAt: this.circuit.retryAt || null,
      probes: this.circuit.probes,
      paused: [...this.pauses].map(([reason, p]) => ({ reason, message: p.message, since: p.since })),
      ...this.last,
    };
  }

  /** The token changed while its probe was in flight: the probe's verdict is about the old one. */
  private tokenChangedMeanwhile(): boolean {
    return this.tokenProbe === 'stale';
  }

  private pause(reason: PauseReason, message: string): void {
    if (!this.pauses.has(reason)) {
      this.log.error({ pause: reason }, `uploads paused: ${message}`);
    }
    const now = this.options.now();
    this.pauses.set(reason, {
      message,
      since: this.pauses.get(reason)?.since ?? now,
      probeAt: now + this.options.probeIntervalMs,
    });
  }
}
