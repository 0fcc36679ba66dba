import { describe, expect, it } from 'vitest';
import { DailyBudget, type BudgetDay } from '../../src/upload/data-budget.js';

const ZONE = 'Europe/Berlin';

function memoryStore(initial?: BudgetDay) {
  const saved: BudgetDay[] = [];
  return { saved, load: () => initial, save: (v: BudgetDay) => void saved.push(v) };
}

describe('DailyBudget', () => {
  it('counts bytes of the local day, allows until the limit, and renews at local midnight', () => {
    let t = Date.parse('2025-06-01T21:00:00Z'); // 23:00 in Berlin
    const store = memoryStore();
    const b = new DailyBudget(1000, ZONE, store, () => t);
    b.add(600);
    expect(b.allows()).toBe(true);
    b.add(400);
    expect(b.allows()).toBe(false);
    expect(b.state()).toMatchObject({ limit: 1000, usedToday: 1000, left: 0, renewsAt: Date.parse('2025-06-01T22:00:00Z') });
    t = Date.parse('2025-06-01T22:00:01Z'); // 00:00:01 the next local day
    expect(b.allows()).toBe(true);
    expect(b.usedToday()).toBe(0);
  });

  it('writes only when flushed after a change, and starts from the stored count of the same day', () => {
    const t = Date.parse('2025-06-01T10:00:00Z');
    const store = memoryStore({ day: '2025-06-01', bytes: 900 });
    const b = new DailyBudget(1000, ZONE, store, () => t);
    expect(b.usedToday()).toBe(900);
    b.flush();
    expect(store.saved).toHaveLength(0);
    b.add(50);
    b.flush();
    b.flush();
    expect(store.saved).toEqual([{ day: '2025-06-01', bytes: 950 }]);
  });

  it('a stored count of an earlier day does not count', () => {
    const b = new DailyBudget(1000, ZONE, memoryStore({ day: '2025-05-31', bytes: 5000 }), () => Date.parse('2025-06-01T10:00:00Z'));
    expect(b.allows()).toBe(true);
  });

  it('without a limit it always allows and has no state', () => {
    const b = new DailyBudget(null, ZONE, memoryStore());
    b.add(1e12);
    expect(b.allows()).toBe(true);
    expect(b.state()).toBeNull();
  });

  it('never rolls back: a clock a day behind keeps counting into the latest day, which renews at its own midnight', () => {
    let t = Date.parse('2025-06-01T10:00:00Z');
    const store = memoryStore({ day: '2025-06-01', bytes: 1000 });
    const b = new DailyBudget(1000, ZONE, store, () => t);
    t -= 86_400_000; // the clock a day behind
    expect(b.allows()).toBe(false);
    expect(b.state()).toMatchObject({ usedToday: 1000, renewsAt: Date.parse('2025-06-01T22:00:00Z') });
    b.flush();
    expect(store.saved).toEqual([]); // nothing changed, nothing written
    t += 86_400_000; // the right clock again: the same day, still spent
    expect(b.allows()).toBe(false);
    t = Date.parse('2025-06-01T22:00:01Z');
    expect(b.allows()).toBe(true);
  });

  it('without a budget counts nothing and writes nothing', () => {
    const store = memoryStore();
    const b = new DailyBudget(null, ZONE, store, () => Date.parse('2025-06-01T10:00:00Z'));
    b.add(5_000);
    b.flush();
    expect(store.saved).toEqual([]);
    expect(b.state()).toBeNull();
  });
});
