import { describe, expect, it } from 'vitest';
import { HttpStatusError, NetworkError, OutcomeUnknownError, ServiceRejectedError } from '../../src/api/errors.js';
import { AdaptiveConcurrency } from '../../src/upload/adaptive-concurrency.js';
import { backoffDelay, reconnectDelay } from '../../src/system/backoff.js';
import { CircuitBreaker } from '../../src/upload/circuit-breaker.js';
import { decide } from '../../src/upload/decide.js';

const REQ = 'POST /api/v1/stations/<redacted>/detections';
function http(status: number, extra: Partial<{ html: boolean; retryAfterMs: number; errors: Record<string, string[]> }> = {}) {
  return new HttpStatusError(REQ, {
    status,
    body: null,
    serverMessage: undefined,
    errors: extra.errors,
    html: extra.html ?? false,
    retryAfterMs: extra.retryAfterMs,
  });
}

describe('decide', () => {
  it('retries network errors and marks the service down', () => {
    const d = decide(new NetworkError('connect ECONNREFUSED', REQ, 'ECONNREFUSED'), 'detection');
    expect(d).toMatchObject({ action: 'retry', serviceDown: true, throttle: false });
  });

  it('sends outcome-unknown failures to reconciliation, never to a blind retry', () => {
    expect(decide(new OutcomeUnknownError('headers timeout', REQ), 'recording').action).toBe('unknown');
  });

  it.each([502, 504])('treats a gateway HTTP %i as an unknown outcome (the service may have stored it)', (status) => {
    expect(decide(http(status), 'detection').action).toBe('unknown');
    expect(decide(http(status), 'recording').action).toBe('unknown');
  });

  it('treats an HTML 500 page (a proxy) as unknown, a JSON 500 from the service as a retry', () => {
    expect(decide(http(500, { html: true }), 'detection').action).toBe('unknown');
    expect(decide(http(500), 'detection').action).toBe('retry');
  });

  it.each([500, 408])('retries HTTP %i', (status) => {
    expect(decide(http(status), 'detection')).toMatchObject({ action: 'retry', serviceDown: true });
  });

  it('throttles on 429 and 503 and keeps Retry-After', () => {
    expect(decide(http(429, { retryAfterMs: 7000 }), 'detection')).toMatchObject({
      action: 'retry',
      throttle: true,
      serviceDown: false,
      retryAfterMs: 7000,
    });
    expect(decide(http(503), 'detection')).toMatchObject({ action: 'retry', throttle: true, serviceDown: true });
  });

  it('treats an HTML page with a 4xx status as a gateway problem, not a verdict', () => {
    expect(decide(http(400, { html: true }), 'detection').action).toBe('retry');
  });

  it.each([401, 403, 404])('pauses the station on %i', (status) => {
    expect(decide(http(status), 'detection')).toMatchObject({ action: 'pause', scope: 'station', reason: 'token-rejected' });
  });

  it('pauses soundscapes on 415 for a recording, fails a detection', () => {
    expect(decide(http(415), 'recording')).toMatchObject({ action: 'pause', scope: 'soundscapes' });
    expect(decide(http(415), 'detection').action).toBe('fail');
  });

  it('fails the item on 422 with the service message', () => {
    const d = decide(http(422, { errors: { species: ['must exist'] } }), 'detection');
    expect(d.action).toBe('fail');
    expect(d.message).toContain('species must exist');
    expect(d.code).toBe('HTTP_422');
  });

  it('fails on a 2xx without id and on local errors', () => {
    expect(decide(new ServiceRejectedError('no id', REQ, 201, {}), 'recording').action).toBe('fail');
    const enoent = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    expect(decide(enoent, 'recording')).toMatchObject({ action: 'fail', code: 'ENOENT' });
  });
});

describe('backoffDelay', () => {
  it('grows exponentially within the cap, with full jitter', () => {
    const top = () => 0.999999;
    expect(backoffDelay(0, { baseMs: 1000, maxMs: 60_000 }, undefined, top)).toBe(999);
    expect(backoffDelay(3, { baseMs: 1000, maxMs: 60_000 }, undefined, top)).toBe(7999);
    expect(backoffDelay(30, { baseMs: 1000, maxMs: 60_000 }, undefined, top)).toBe(59_999);
    expect(backoffDelay(5, { baseMs: 1000, maxMs: 60_000 }, undefined, () => 0)).toBe(0);
  });

  it('never retries before Retry-After', () => {
    expect(backoffDelay(0, { baseMs: 1000, maxMs: 60_000 }, 30_000, () => 0)).toBe(30_000);
    expect(backoffDelay(0, { baseMs: 1000, maxMs: 60_000 }, 30_000, () => 0.5)).toBe(30_500);
  });
});

describe('reconnectDelay', () => {
  it('waits half to all of 1 s doubling to a minute, never less', () => {
    const opts = { baseMs: 1000, maxMs: 60_000 };
    expect([0, 1, 3, 6, 30].map((a) => reconnectDelay(a, opts, () => 0))).toEqual([500, 1000, 4000, 30_000, 30_000]);
    expect([0, 1, 3, 6, 30].map((a) => reconnectDelay(a, opts, () => 0.999999))).toEqual([1000, 2000, 8000, 60_000, 60_000]);
  });
});

describe('CircuitBreaker', () => {
  it('opens after consecutive failures, probes once, doubles the interval on a failed probe', () => {
    let now = 0;
    const cb = new CircuitBreaker({ failureThreshold: 2, minOpenMs: 1000, maxOpenMs: 3000, now: () => now });
    expect(cb.tryAcquire()).toBe('go');
    cb.failure();
    expect(cb.current).toBe('closed');
    cb.failure();
    expect(cb.current).toBe('open');
    expect(cb.tryAcquire()).toBe('wait');
    now = 1000;
    expect(cb.tryAcquire()).toBe('probe');
    expect(cb.tryAcquire()).toBe('wait');
    cb.failure();
    now = 2999;
    expect(cb.tryAcquire()).toBe('wait');
    now = 3000;
    expect(cb.tryAcquire()).toBe('probe');
    cb.failure();
    now = 3000 + 2999;
    expect(cb.tryAcquire()).toBe('wait');
    now = 6000;
    expect(cb.tryAcquire()).toBe('probe');
    cb.success();
    expect(cb.current).toBe('closed');
    expect(cb.probes).toBe(3);
  });

  it('a success resets the failure count', () => {
    const cb = new CircuitBreaker({ failureThreshold: 2 });
    cb.failure();
    cb.success();
    cb.failure();
    expect(cb.current).toBe('closed');
  });
});

describe('AdaptiveConcurrency', () => {
  it('halves on throttling and grows back by successes, within bounds', () => {
    const c = new AdaptiveConcurrency(8, 8);
    c.throttled();
    expect(c.limit).toBe(4);
    c.throttled();
    c.throttled();
    c.throttled();
    expect(c.limit).toBe(1);
    for (let i = 0; i < 100; i++) c.success();
    expect(c.limit).toBe(8);
  });
});

describe('decide on redirects', () => {
  it('pauses the station on a 3xx: the base URL is wrong (http to https, a moved host)', () => {
    expect(decide(http(301), 'detection')).toMatchObject({ action: 'pause', scope: 'station' });
  });
});

describe('CircuitBreaker.cancelProbe', () => {
  it('gives an unused probe permission back, so the circuit cannot stay half-open forever', () => {
    let now = 0;
    const cb = new CircuitBreaker({ failureThreshold: 1, minOpenMs: 1000, now: () => now });
    cb.failure();
    now = 1000;
    expect(cb.tryAcquire()).toBe('probe');
    cb.cancelProbe();
    expect(cb.tryAcquire()).toBe('probe');
  });
});
