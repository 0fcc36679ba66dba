import { describe, expect, it } from 'vitest';
import { parseRuntimeSnapshot } from '../../src/runtime/snapshot.js';

/**
 * The stored snapshot is read leniently (another version of the agent may have written
 * it): each row is what the meta table may hold, and what `status` then reads.
 */
const ROWS: { what: string; stored: unknown; read: unknown }[] = [
  { what: 'not an object', stored: 'runtime', read: null },
  { what: 'no pid', stored: { updatedAt: 5 }, read: null },
  { what: 'a pid that is a string', stored: { pid: '12', updatedAt: 5 }, read: null },
  {
    what: 'only the stamps: every section neutral, startedAt and configSync.at from updatedAt',
    stored: { pid: 12, updatedAt: 5_000 },
    read: {
      pid: 12,
      startedAt: 5_000,
      updatedAt: 5_000,
      uploader: { inFlight: 0, concurrencyLimit: 0, circuit: 'closed', circuitRetryAt: null, probes: 0, paused: [], lastSuccessAt: null, lastError: null },
      watcher: { ready: false, pending: 0, dir: '' },
      clock: 'unknown',
      disk: { freeBytes: null, spoolBytes: 0, low: false },
      configSync: { state: 'idle', at: 5_000 },
    },
  },
  {
    what: 'wrong kinds of value fall back; unknown keys are left out; a pause that is not an object is dropped',
    stored: {
      pid: 7,
      startedAt: 'yesterday',
      updatedAt: 9,
      extra: true,
      uploader: { inFlight: 2, circuit: 'ajar', probes: Number.NaN, paused: [{ reason: 'token', message: 'HTTP 403', since: 3 }, 'clock', { since: 'x' }], lastError: { code: 7 } },
      watcher: { ready: 'yes', pending: 4, dir: '/in' },
      clock: 'synchronized',
      disk: { freeBytes: 100, spoolBytes: -1, low: true },
      configSync: { state: 'synced', at: 8, error: 42, attempts: 3 },
      mqtt: { connected: true, broker: 'mqtt://host:1883', lastPublishAt: 'never' },
      link: { windows: ['06:00-08:00'], windowOpen: true },
    },
    read: {
      pid: 7,
      startedAt: 9,
      updatedAt: 9,
      uploader: {
        inFlight: 2,
        concurrencyLimit: 0,
        circuit: 'closed',
        circuitRetryAt: null,
        probes: 0,
        paused: [
          { reason: 'token', message: 'HTTP 403', since: 3 },
          { reason: 'unknown', message: '', since: 0 },
        ],
        lastSuccessAt: null,
        lastError: { message: '', code: 'ERR_UNKNOWN', at: 0 },
      },
      watcher: { ready: false, pending: 4, dir: '/in' },
      clock: 'synchronized',
      disk: { freeBytes: 100, spoolBytes: -1, low: true },
      configSync: { state: 'synced', at: 8, attempts: 3 },
      mqtt: { connected: true, broker: 'mqtt://host:1883', lastPublishAt: null, lastError: null },
      link: { windows: ['06:00-08:00'], windowsAudioOnly: false, windowOpen: true, windowChangesAt: null, budget: null, capBytesPerSec: null, rateBytesPerSec: 0 },
    },
  },
  {
    what: 'the link section read field by field, as the others are',
    stored: { pid: 1, updatedAt: 2, link: { windows: '06:00-08:00', windowOpen: false, windowChangesAt: 30, budget: { limit: 10, usedToday: 'a' }, capBytesPerSec: 5, rateBytesPerSec: '5' } },
    read: expect.objectContaining({
      link: { windows: [], windowsAudioOnly: false, windowOpen: false, windowChangesAt: 30, budget: { limit: 10, usedToday: 0, left: 0, renewsAt: 0 }, capBytesPerSec: 5, rateBytesPerSec: 0 },
    }),
  },
  {
    what: 'an MQTT section that is not an object is left out',
    stored: { pid: 1, updatedAt: 2, mqtt: 'off', link: null },
    read: expect.not.objectContaining({ mqtt: expect.anything(), link: expect.anything() }),
  },
];

describe('parseRuntimeSnapshot', () => {
  for (const row of ROWS) {
    it(row.what, () => {
      expect(parseRuntimeSnapshot(row.stored)).toEqual(row.read);
    });
  }
});
