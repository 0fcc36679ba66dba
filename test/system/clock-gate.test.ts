import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/validate.js';
import { ClockGate } from '../../src/daemon/clock-gate.js';
import { openQueue, type Queue } from '../../src/queue/index.js';
import { clockCheck } from '../../src/status/doctor/local-checks.js';
import type { ClockSyncState } from '../../src/system/clock.js';
import { clockHold, type RequireSync } from '../../src/system/clock-gate.js';
import { stationContext } from '../helpers/station-context.js';
import { tempDir } from '../helpers/paths.js';

/**
 * One rule for the clock: the daemon's clock gate holds uploads exactly when doctor's
 * clock check fails, for every `clock.requireSync` and every state the system reports.
 */
const MODES: RequireSync[] = ['always', 'auto', 'never'];
const STATES: ClockSyncState[] = ['synchronized', 'unsynchronized', 'unknown'];

function config(mode: RequireSync) {
  return parseConfig(
    {
      service: { baseUrl: 'https://service.example.org', token: 'abc' },
      station: { latitude: 52.5, longitude: 13.4, timezone: 'Europe/Berlin' },
      input: { dir: '/tmp/in' },
      clock: { requireSync: mode },
    },
    'config.json',
  );
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function queue(): Queue {
  const tmp = tempDir('clock-gate-');
  const q = openQueue(path.join(tmp.dir, 'queue.db'));
  cleanups.push(() => {
    q.close();
    tmp.cleanup();
  });
  return q;
}

describe('the clock gate', () => {
  it('holds for an unsynchronised clock unless never, and for an unknown one only with always', () => {
    expect(clockHold('always', 'unknown')).toMatch(/not synchronised \(unknown\)/);
    expect(clockHold('auto', 'unknown')).toBeNull();
    expect(clockHold('auto', 'unsynchronized')).not.toBeNull();
    expect(clockHold('never', 'unsynchronized')).toBeNull();
    for (const mode of MODES) expect(clockHold(mode, 'synchronized')).toBeNull();
  });

  for (const mode of MODES) {
    for (const state of STATES) {
      it(`doctor and the daemon agree: requireSync ${mode}, clock ${state}`, async () => {
        const c = config(mode);
        const gate = new ClockGate(stationContext(c, queue(), pino({ level: 'silent' })));
        gate.state = state;
        const holds = gate.hold() !== null;
        expect(holds).toBe(clockHold(mode, state) !== null);
        const check = await clockCheck(c, () => Promise.resolve(state));
        expect(check.status === 'fail').toBe(holds);
        if (state === 'synchronized') expect(check.status).toBe('pass');
      });
    }
  }
});
