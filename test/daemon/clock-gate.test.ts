import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config/validate.js';
import { ClockGate } from '../../src/daemon/clock-gate.js';
import { openQueue } from '../../src/queue/index.js';
import type { ClockSyncState } from '../../src/system/clock.js';
import { tempDir } from '../helpers/paths.js';
import { stationContext } from '../helpers/station-context.js';

/**
 * How often the daemon asks the system about its clock: where timesyncd's file is missing
 * (chrony, ntpd, no systemd) every question is a `timedatectl` process, so the gate asks
 * every minute only while the answer is "not synchronised". The gate runs on a real queue;
 * the minutes pass on vitest's timers and an injected monotonic clock, the system's answer
 * is counted.
 */
const cleanups: (() => void)[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0)) c();
});

const MINUTE = 60_000;

async function questionsInAnHour(answers: (n: number) => ClockSyncState): Promise<{ at: number[]; gate: ClockGate }> {
  const tmp = tempDir('clock-gate-');
  const queue = openQueue(path.join(tmp.dir, 'queue.db'));
  cleanups.push(() => {
    queue.close();
    tmp.cleanup();
  });
  const config = parseConfig(
    {
      service: { baseUrl: 'https://service.example.org', token: 'abc' },
      station: { latitude: 52.5, longitude: 13.4, timezone: 'Europe/Berlin' },
      input: { dir: path.join(tmp.dir, 'in') },
      clock: { requireSync: 'auto' },
    },
    'config.json',
  );
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  let now = 0;
  const at: number[] = [];
  const gate = new ClockGate(
    stationContext(config, queue, pino({ level: 'silent' }), {
      clock: {
        probe: () => {
          at.push(now / MINUTE);
          return Promise.resolve(answers(at.length));
        },
        // The answer and the tick drift a little, as they do on a station.
        monotonic: () => now + 3,
      },
    }),
  );
  await gate.start();
  for (let minute = 1; minute <= 60; minute++) {
    now = minute * MINUTE;
    await vi.advanceTimersByTimeAsync(MINUTE);
  }
  gate.stop();
  return { at, gate };
}

describe('the clock gate asks the system', () => {
  it('every minute while the clock is not synchronised', async () => {
    const { at, gate } = await questionsInAnHour(() => 'unsynchronized');
    expect(at).toEqual(Array.from({ length: 61 }, (_, i) => i));
    expect(gate.hold()).toMatch(/not synchronised/);
  });

  it('every 15 minutes once it is', async () => {
    expect((await questionsInAnHour(() => 'synchronized')).at).toEqual([0, 15, 30, 45, 60]);
  });

  it('after 1, 2, 4, 8, then every 15 minutes when the system cannot say', async () => {
    expect((await questionsInAnHour(() => 'unknown')).at).toEqual([0, 1, 3, 7, 15, 30, 45, 60]);
  });

  it('every minute again as soon as the clock is not synchronised, and sees the sync that follows', async () => {
    // Synchronised at start, unsynchronised from the 2nd answer (minute 15) to the 5th, then synchronised.
    const { at, gate } = await questionsInAnHour((n) => (n === 1 ? 'synchronized' : n <= 5 ? 'unsynchronized' : 'synchronized'));
    expect(at).toEqual([0, 15, 16, 17, 18, 19, 34, 49]);
    expect(gate.state).toBe('synchronized');
  });

  it('the unknown streak starts again after a real answer', async () => {
    // unknown, unknown, synchronized, then unknown for good: 1 min, 2 min, 15 min, then 1, 2, 4 ...
    const { at } = await questionsInAnHour((n) => (n === 3 ? 'synchronized' : 'unknown'));
    expect(at).toEqual([0, 1, 3, 18, 19, 21, 25, 33, 48]);
  });
});
