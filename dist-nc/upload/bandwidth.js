import { Transform } from 'node:stream';
export class TokenBucket {
    rate;
    burst;
    tokens;
    last;
    now;
    constructor(options) {
        if (!(options.rate > 0))
            throw new TypeError(`TokenBucket rate must be positive, got ${options.rate}`);
        this.rate = options.rate;
        this.burst = Math.max(1, Math.floor(options.burst ?? Math.max(1024, Math.min(options.rate / 4, 64 * 1024))));
        this.now = options.now ?? (() => performance.now());
        this.tokens = this.burst;
        this.last = this.now();
    }
    take(n) {
        const now = this.now();
        this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.rate) / 1000);
        this.last = now;
        this.tokens -= n;
        return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.rate;
    }
}
const MAX_PIECE = 16 * 1024;
export function pacedStream(bucket, onBytes = () => { }) {
    let timer;
    const piece = bucket ? Math.min(MAX_PIECE, bucket.burst) : Infinity;
    return new Transform({
        transform(chunk, _encoding, callback) {
            if (!bucket) {
                onBytes(chunk.length);
                callback(null, chunk);
                return;
            }
            let offset = 0;
            const next = () => {
                if (offset >= chunk.length) {
                    callback();
                    return;
                }
                const part = chunk.subarray(offset, Math.min(chunk.length, offset + piece));
                offset += part.length;
                const wait = bucket.take(part.length);
                const send = () => {
                    timer = undefined;
                    onBytes(part.length);
                    this.push(part);
                    next();
                };
                if (wait <= 0)
                    send();
                else
                    timer = setTimeout(send, wait);
            };
            next();
        },
        destroy(err, callback) {
            clearTimeout(timer);
            callback(err);
        },
    });
}
