import { describe, expect, it } from 'vitest';
import { ExpiryClock } from '../../src/queue/expiry-clock.js';

const T = Date.parse('2025-06-01T10:00:00Z');
const DAY = 86_400_000;

/** A wall clock and a monotonic clock the test moves. */
function clocks(lastKnown: number | null, synced = false) {
  const c = { wall: T, mono: 1_000, synced };
  const jumps: number[] = [];
  const expiry = new ExpiryClock({ wall: () => c.wall, mono: () => c.mono, lastKnown, synced: () => c.synced, onJump: (wall) => jumps.push(wall) });
  const pass = (ms: number, wallStep = ms) => {
    c.mono += ms;
    c.wall += wallStep;
  };
  return { c, expiry, jumps, pass };
}

describe('the expiry clock', () => {
  it('follows a clock that runs on, steps by less than a day, or falls behind', () => {
    const { c, expiry, pass } = clocks(T - 60_000);
    expect(expiry.now()).toBe(T);
    pass(60_000);
    expect(expiry.now()).toBe(T + 60_000);
    pass(1_000, 3 * 3_600_000); // an NTP step of 3 h
    expect(expiry.now()).toBe(c.wall);
    c.wall -= 2 * DAY; // behind: expiries only fire later
    expect(expiry.now()).toBe(c.wall);
    c.wall += 2 * DAY; // back: still plausible, followed
    expect(expiry.now()).toBe(c.wall);
  });

  it('does not follow a jump of more than a day ahead: the reference runs on instead, until the jump has held for a day', () => {
    const { c, expiry, jumps, pass } = clocks(T - 60_000);
    expect(expiry.now()).toBe(T);
    c.wall = Date.parse('2100-01-01T00:00:00Z');
    expect(expiry.now()).toBe(T);
    pass(75_000);
    expect(expiry.now()).toBe(T + 75_000);
    expect(jumps).toHaveLength(1);
    // Back to the right time: followed at once.
    c.wall = T + 80_000;
    pass(5_000, 0);
    expect(expiry.now()).toBe(T + 80_000);
    // A jump that holds steadily for a day is believed (a real gap the system could not confirm).
    c.wall += 3 * DAY;
    expect(expiry.now()).toBe(T + 80_000);
    pass(DAY);
    expect(expiry.now()).toBe(c.wall);
  });

  it('steps add up: two steps of 20 h within a day are not followed past a day ahead, and each is once a day has settled the last (issue 35)', () => {
    const { c, expiry, jumps, pass } = clocks(T - 60_000);
    expect(expiry.now()).toBe(T);
    pass(60_000, 20 * 3_600_000);
    expect(expiry.now()).toBe(c.wall); // one step of 20 h: followed
    pass(60_000, 20 * 3_600_000);
    expect(expiry.now()).toBe(T + 20 * 3_600_000 + 60_000); // 40 h ahead of the settled time: not
    expect(jumps).toHaveLength(1);
    pass(DAY); // the second step held for a day: believed
    expect(expiry.now()).toBe(c.wall);
    pass(DAY, DAY + 20 * 3_600_000); // a day without a step settled it: the next step of 20 h is followed
    expect(expiry.now()).toBe(c.wall);
    pass(60_000, 20 * 3_600_000); // and one more within that day is not
    expect(expiry.now()).toBe(c.wall - 20 * 3_600_000 + 60_000);
  });

  it('a restart with the clock far ahead of the queue\'s last write waits for NTP sync', () => {
    const { c, expiry } = clocks(T - 10 * DAY);
    expect(expiry.now()).toBe(T - 10 * DAY);
    c.synced = true;
    expect(expiry.now()).toBe(T);
  });

  it('a new queue takes a plausible clock as its reference, never an unset one', () => {
    const { c, expiry } = clocks(null);
    c.wall = Date.parse('1970-01-02T00:00:00Z');
    expect(expiry.now()).toBe(c.wall);
    c.wall = T; // NTP sets the clock: followed, and now the reference
    expect(expiry.now()).toBe(T);
    c.wall = Date.parse('2100-01-01T00:00:00Z');
    expect(expiry.now()).toBe(T);
  });
});
