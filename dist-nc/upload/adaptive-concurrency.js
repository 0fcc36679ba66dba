export class AdaptiveConcurrency {
    max;
    value;
    constructor(max, initial = Math.max(1, Math.ceil(max / 2))) {
        this.max = max;
        if (!Number.isInteger(max) || max < 1)
            throw new RangeError(`concurrency must be an integer >= 1 (got ${max})`);
        this.value = Math.min(max, Math.max(1, initial));
    }
    get limit() {
        return Math.max(1, Math.floor(this.value));
    }
    success() {
        this.value = Math.min(this.max, this.value + 1 / this.value);
    }
    throttled() {
        this.value = Math.max(1, this.value / 2);
    }
}
