import { Transform, type TransformCallback } from 'node:stream';

/**
 * The bandwidth cap of audio uploads (`upload.audioBytesPerSec`): one token bucket
 * shared by every soundscape upload in flight, so the cap holds for the station's
 * link, not per request. The body of each upload passes through a pacing Transform
 * that takes tokens for the bytes it lets through and waits when there are none: the
 * bytes actually handed to the socket are paced, and nothing is buffered beyond the
 * stream's own chunk (a file is never read whole).
 */

export interface TokenBucketOptions {
  /** Bytes per second. */
  rate: number;
  /** Most bytes that may go at once after an idle spell. Default: a quarter second's worth (at least 1 KiB, at most 64 KiB), so a metered link sees an even rate, not a lump per upload. */
  burst?: number;
  now?: () => number;
}

export class TokenBucket {
  readonly rate: number;
  readonly burst: number;
  private tokens: number;
  private last: number;
  private readonly now: () => number;

  constructor(options: TokenBucketOptions) {
    if (!(options.rate > 0)) throw new TypeError(`TokenBucket rate must be positive, got ${options.rate}`);
    this.rate = options.rate;
    this.burst = Math.max(1, Math.floor(options.burst ?? Math.max(1024, Math.min(options.rate / 4, 64 * 1024))));
    this.now = options.now ?? (() => performance.now());
    this.tokens = this.burst;
    this.last = this.now();
  }

  /**
   * Takes `n` bytes' worth of tokens (the balance may go negative: later takers
   * queue behind) and returns how many milliseconds the caller must wait before
   * sending them. Callers take at most `burst` at a time.
   */
  take(n: number): number {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.rate) / 1000);
    this.last = now;
    this.tokens -= n;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.rate;
  }
}

/** Pieces small enough for a smooth pace: a file stream's 64 KiB chunk at 8 KiB/s would go in one lump every 8 s. */
const MAX_PIECE = 16 * 1024;

/**
 * A Transform that lets bytes through at the bucket's pace and reports every
 * byte it passes to `onBytes` (the daily budget counts them). Destroying the
 * stream (an aborted request) cancels the wait.
 */
export function pacedStream(bucket: TokenBucket | null, onBytes: (n: number) => void = () => {}): Transform {
  let timer: NodeJS.Timeout | undefined;
  const piece = bucket ? Math.min(MAX_PIECE, bucket.burst) : Infinity;
  return new Transform({
    transform(this: Transform, chunk: Buffer, _encoding, callback: TransformCallback) {
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
        if (wait <= 0) send();
        else timer = setTimeout(send, wait);
      };
      next();
    },
    destroy(err, callback) {
      clearTimeout(timer);
      callback(err);
    },
  });
}
