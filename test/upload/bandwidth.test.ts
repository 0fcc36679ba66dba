import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { pacedStream, TokenBucket } from '../../src/upload/bandwidth.js';

/** The pacing logic with an injected clock (the rate achieved is measured in the bench, `--only bandwidth`). */
describe('TokenBucket', () => {
  it('lets a burst go at once, then asks each taker to wait for its bytes at the rate', () => {
    let t = 0;
    const b = new TokenBucket({ rate: 1000, burst: 500, now: () => t });
    expect(b.take(500)).toBe(0);
    expect(b.take(250)).toBe(250);
    // A second taker queues behind the first: the balance is shared.
    expect(b.take(250)).toBe(500);
    t = 500;
    expect(b.take(100)).toBe(100);
  });

  it('refills no further than the burst after an idle spell', () => {
    let t = 0;
    const b = new TokenBucket({ rate: 1000, burst: 100, now: () => t });
    b.take(100);
    t = 60_000;
    expect(b.take(100)).toBe(0);
    expect(b.take(100)).toBe(100);
  });

  it('over a long run, the waits add up to bytes / rate', () => {
    let t = 0;
    const b = new TokenBucket({ rate: 65_536, now: () => t });
    for (let i = 0; i < 64; i++) t += b.take(16 * 1024);
    // 1 MiB at 64 KiB/s: 16 s, less the first quarter second's burst.
    expect(t).toBeCloseTo(15_750, -1);
  });

  it('refuses a rate that is not positive', () => {
    expect(() => new TokenBucket({ rate: 0 })).toThrow(/rate must be positive/);
  });
});

describe('pacedStream', () => {
  it('passes every byte unchanged and counts them, in pieces no larger than the burst', async () => {
    const data = Buffer.alloc(100_000, 7);
    data[99_999] = 1;
    const bucket = new TokenBucket({ rate: 1e12, burst: 10_000 });
    const counted: number[] = [];
    const out: Buffer[] = [];
    await pipeline(
      Readable.from([data.subarray(0, 70_000), data.subarray(70_000)]),
      pacedStream(bucket, (n) => counted.push(n)),
      new Writable({ write: (c: Buffer, _e, cb) => (out.push(c), cb()) }),
    );
    expect(Buffer.concat(out).equals(data)).toBe(true);
    expect(counted.reduce((a, b) => a + b, 0)).toBe(100_000);
    expect(Math.max(...counted)).toBeLessThanOrEqual(10_000);
  });

  it('without a cap it only counts', async () => {
    let n = 0;
    const out: Buffer[] = [];
    await pipeline(Readable.from([Buffer.alloc(300_000)]), pacedStream(null, (b) => (n += b)), new Writable({ write: (c: Buffer, _e, cb) => (out.push(c), cb()) }));
    expect(n).toBe(300_000);
    expect(out).toHaveLength(1);
  });
});
