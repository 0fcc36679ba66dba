import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Queue } from '../../src/queue/db.js';
import { openQueue } from '../../src/queue/db.js';
import { deleteMeta, getMeta, incrementCounters, setMeta } from '../../src/queue/meta.js';
import { tempQueue } from './helpers.js';

let q: Queue;
let dbPath: string;
let cleanup: () => void;
beforeEach(() => ({ q, dbPath, cleanup } = tempQueue()));
afterEach(() => cleanup());

describe('meta', () => {
  it('stores typed JSON values that survive a re-open', () => {
    expect(getMeta(q, 'lastSuccessAt')).toBeUndefined();
    setMeta(q, 'lastSuccessAt', 1_714_536_000_123);
    setMeta(q, 'pauseReasons', { station: { reason: 'token-rejected', code: 'ERR_HTTP_STATUS', message: 'HTTP 401', since: 5 } });
    setMeta(q, 'pauseReasons', {});
    setMeta(q, 'custom.thing', { a: [1, 'two'] });
    q.close();
    const again = openQueue(dbPath);
    try {
      expect(getMeta(again, 'lastSuccessAt')).toBe(1_714_536_000_123);
      expect(getMeta(again, 'pauseReasons')).toEqual({});
      expect(getMeta<{ a: unknown[] }>(again, 'custom.thing')).toEqual({ a: [1, 'two'] });
      expect(deleteMeta(again, 'custom.thing')).toBe(true);
      expect(getMeta(again, 'custom.thing')).toBeUndefined();
    } finally {
      again.close();
    }
  });

  it('adds to counters in one transaction', () => {
    expect(incrementCounters(q, { uploaded: 3, retries: 1 })).toEqual({ uploaded: 3, retries: 1 });
    expect(incrementCounters(q, { uploaded: 2 })).toEqual({ uploaded: 5, retries: 1 });
    expect(getMeta(q, 'counters')).toEqual({ uploaded: 5, retries: 1 });
  });

  it('refuses a value that is not JSON, and names a damaged key', () => {
    expect(() => setMeta(q, 'x', undefined)).toThrow(/meta key "x": value is not JSON/);
    q.db.prepare(`INSERT INTO meta (key, value, updated_at) VALUES ('bad', '{nope', 0)`).run();
    expect(() => getMeta(q, 'bad')).toThrow(/meta key "bad" .* does not hold JSON/);
  });
});
