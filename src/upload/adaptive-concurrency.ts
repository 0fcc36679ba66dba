/**
 * How many requests the uploader keeps in flight: additive increase, multiplicative
 * decrease (AIMD, as TCP does). The real service has answered parallel posts from
 * one station with 503, so a 429/503 halves the limit, and every success adds
 * 1/limit (about +1 per window of successful requests), up to the configured maximum.
 */
export class AdaptiveConcurrency {
  private value: number;

  constructor(
    private readonly max: number,
    initial = Math.max(1, Math.ceil(max / 2)),
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be an integer >= 1 (got ${max})`);
    this.value = Math.min(max, Math.max(1, initial));
  }

  /** The current number of requests allowed in flight. */
  get limit(): number {
    return Math.max(1, Math.floor(this.value));
  }

  success(): void {
    this.value = Math.min(this.max, this.value + 1 / this.value);
  }

  throttled(): void {
    this.value = Math.max(1, this.value / 2);
  }
}
