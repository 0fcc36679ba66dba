/**
 * A circuit breaker around the service, so that an outage does not turn into a
 * busy loop of doomed requests (and burnt attempts) from every queued item.
 *
 * - closed: requests flow. `failureThreshold` consecutive service-down failures open it.
 * - open: nothing is sent until `openUntil`; then one probe request is let through
 *   (half-open). The open interval doubles on every failed probe, up to `maxOpenMs`,
 *   so a week-long outage costs a bounded number of probes.
 * - half-open: exactly one request in flight; its success closes the circuit, its
 *   failure opens it again.
 */
export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive service-down failures that open the circuit. Default 3. */
  failureThreshold?: number;
  /** First open interval. Default 5 s. */
  minOpenMs?: number;
  /** Longest open interval (the probe interval during a long outage). Default 60 s. */
  maxOpenMs?: number;
  now?: () => number;
}

export class CircuitBreaker {
  private state: CircuitState = 'closed';
  private failures = 0;
  private openMs: number;
  private openUntil = 0;
  private probeInFlight = false;
  private readonly threshold: number;
  private readonly minOpenMs: number;
  private readonly maxOpenMs: number;
  private readonly now: () => number;
  /** Requests let through as probes while the service was down; for status and tests. */
  probes = 0;

  constructor(opts: CircuitBreakerOptions = {}) {
    this.threshold = opts.failureThreshold ?? 3;
    this.minOpenMs = opts.minOpenMs ?? 5_000;
    this.maxOpenMs = Math.max(opts.maxOpenMs ?? 60_000, this.minOpenMs);
    this.openMs = this.minOpenMs;
    this.now = opts.now ?? Date.now;
  }

  get current(): CircuitState {
    if (this.state === 'open' && this.now() >= this.openUntil) return 'half-open';
    return this.state;
  }

  /** When the next probe may go, while open; 0 when closed. */
  get retryAt(): number {
    return this.state === 'closed' ? 0 : this.openUntil;
  }

  /**
   * Asks for permission to send one request. In half-open state only one caller
   * gets it; it must report back with `success()` or `failure()` (or `release()`).
   */
  tryAcquire(): 'go' | 'probe' | 'wait' {
    const state = this.current;
    if (state === 'closed') return 'go';
    if (state === 'open' || this.probeInFlight) return 'wait';
    this.probeInFlight = true;
    this.state = 'half-open';
    this.probes += 1;
    return 'probe';
  }

  success(): void {
    this.failures = 0;
    this.probeInFlight = false;
    this.state = 'closed';
    this.openMs = this.minOpenMs;
  }

  /** A service-down failure (network error, 5xx, gateway page). */
  failure(): void {
    this.failures += 1;
    const wasProbe = this.state === 'half-open';
    this.probeInFlight = false;
    if (wasProbe) {
      this.openMs = Math.min(this.maxOpenMs, this.openMs * 2);
      this.trip();
    } else if (this.state === 'closed' && this.failures >= this.threshold) {
      this.trip();
    }
  }

  /** A probe permission that was not used (nothing was due): the next caller may probe. */
  cancelProbe(): void {
    this.probeInFlight = false;
  }

  /** The request ended without saying anything about the service's health (e.g. a 422). */
  release(): void {
    if (this.state === 'half-open') {
      // The service answered: it is up.
      this.success();
    }
  }

  private trip(): void {
    this.state = 'open';
    this.openUntil = this.now() + this.openMs;
  }
}
