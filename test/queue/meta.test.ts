import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Queue } from '../../src/queue/db.js';
import { openQueue } from '../../src/queue/db.js';
import { getMeta, setMeta } from '../../src/queue/meta.js';
import { tempQueue } from './helpers.js';

let q: Queue;
let dbPath: string;
let cleanup: () => void;
beforeEach(() => ({ q, dbPath, cleanup } = tempQueue()));
afterEach(() => cleanup());

const updatedAt = (key: string) => (q.stmt('SELECT updated_at AS t FROM meta WHERE key = ?').get(key) as { t: number } | undefined)?.t;
const totalChanges = () => q.stmt('SELECT total_changes()').pluck().get() as number;

describe('meta', () => {
  it('stores typed JSON values that survive a re-open', () => {
    expect(getMeta(q, 'lastSuccessAt')).toBeUndefined();
    setMeta(q, 'lastSuccessAt', 1_714_536_000_123);
    setMeta(q, 'audioBudget', { day: '2024-05-01', bytes: 10 });
    q.close();
    const again = openQueue(dbPath);
    try {
      expect(getMeta(again, 'lastSuccessAt')).toBe(1_714_536_000_123);
      expect(getMeta(again, 'audioBudget')).toEqual({ day: '2024-05-01', bytes: 10 });
    } finally {
      again.close();
    }
  });

  it('writes nothing when the value is unchanged', () => {
    expect(setMeta(q, 'audioBudget', { day: '2024-05-01', bytes: 10 }, { now: 1 })).toBe(true);
    const before = totalChanges();
    expect(setMeta(q, 'audioBudget', { day: '2024-05-01', bytes: 10 }, { now: 2 })).toBe(false);
    expect(totalChanges()).toBe(before);
    expect(updatedAt('audioBudget')).toBe(1);
    expect(setMeta(q, 'audioBudget', { day: '2024-05-01', bytes: 11 }, { now: 3 })).toBe(true);
    expect(updatedAt('audioBudget')).toBe(3);
  });

  it('refuses a value that is not JSON, and names a damaged key', () => {
    expect(() => setMeta(q, 'lastSuccessAt', undefined as unknown as number)).toThrow(/meta key "lastSuccessAt": value is not JSON/);
    q.db.prepare(`INSERT INTO meta (key, value, updated_at) VALUES ('station', '{nope', 0)`).run();
    expect(() => getMeta(q, 'station')).toThrow(/meta key "station" .* does not hold JSON/);
  });
});
