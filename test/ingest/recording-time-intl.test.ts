import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatServiceTimestamp, resolveRecordingStart } from '../../src/ingest/recording-time.js';

/**
 * A station whose recordings are named in UTC or with an offset (AudioMoth names) needs no
 * time zone database: the first Intl.DateTimeFormat of a process loads some 8 MB of ICU,
 * which the daemon then keeps. Its own file: luxon remembers the system locale once asked,
 * so no earlier test of this worker may have asked it.
 */
describe('recording times in UTC and at fixed offsets', () => {
  afterEach(() => vi.restoreAllMocks());

  it('are read and written without Intl.DateTimeFormat', () => {
    const made = vi.spyOn(Intl, 'DateTimeFormat');
    const start = resolveRecordingStart({ zone: 'UTC', fileName: ['20250601_000000.wav', '2025-06-01T00-00-00+02-00.wav'] });
    expect(start?.start.toISOString()).toBe('2025-06-01T00:00:00.000Z');
    const offset = resolveRecordingStart({ zone: 'UTC', fileName: 'rec_2025-06-01T06-00-00+02-00.wav' });
    expect(offset?.start.toISOString()).toBe('2025-06-01T04:00:00.000Z');
    expect(formatServiceTimestamp(offset!.start, 'UTC')).toBe('2025-06-01T04:00:00.000+00:00');
    expect(made).not.toHaveBeenCalled();
  });
});
