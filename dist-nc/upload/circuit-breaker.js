export class CircuitBreaker {
    state = 'closed';
    failures = 0;
    openMs;
    openUntil = 0;
    probeInFlight = false;
    threshold;
    minOpenMs;
    maxOpenMs;
    now;
    probes = 0;
    constructor(opts = {}) {
        this.threshold = opts.failureThreshold ?? 3;
        this.minOpenMs = opts.minOpenMs ?? 5_000;
        this.maxOpenMs = Math.max(opts.maxOpenMs ?? 60_000, this.minOpenMs);
        this.openMs = this.minOpenMs;
        this.now = opts.now ?? Date.now;
    }
    get current() {
        if (this.state === 'open' && this.now() >= this.openUntil)
            return 'half-open';
        return this.state;
    }
    get retryAt() {
        return this.state === 'closed' ? 0 : this.openUntil;
    }
    tryAcquire() {
        const state = this.current;
        if (state === 'closed')
            return 'go';
        if (state === 'open' || this.probeInFlight)
            return 'wait';
        this.probeInFlight = true;
        this.state = 'half-open';
        this.probes += 1;
        return 'probe';
    }
    success() {
        this.failures = 0;
        this.probeInFlight = false;
        this.state = 'closed';
        this.openMs = this.minOpenMs;
    }
    failure() {
        this.failures += 1;
        const wasProbe = this.state === 'half-open';
        this.probeInFlight = false;
        if (wasProbe) {
            this.openMs = Math.min(this.maxOpenMs, this.openMs * 2);
            this.trip();
        }
        else if (this.state === 'closed' && this.failures >= this.threshold) {
            this.trip();
        }
    }
    cancelProbe() {
        this.probeInFlight = false;
    }
    release() {
        if (this.state === 'half-open') {
            this.success();
        }
    }
    trip() {
        this.state = 'open';
        this.openUntil = this.now() + this.openMs;
    }
}
