import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { parseTimeRange, UploadWindows } from '../../src/upload/windows.js';

const ZONE = 'Europe/Berlin';
const at = (iso: string) => DateTime.fromISO(iso, { zone: ZONE }).toMillis();
const local = (ms: number | null) => (ms === null ? null : DateTime.fromMillis(ms, { zone: ZONE }).toISO({ suppressMilliseconds: true }));

describe('parseTimeRange', () => {
  it('reads HH:MM-HH:MM, across midnight and to 24:00', () => {
    expect(parseTimeRange('22:00-06:00')).toMatchObject({ start: 1320, end: 360 });
    expect(parseTimeRange('00:00-24:00')).toMatchObject({ start: 0, end: 1440 });
    expect(parseTimeRange(' 7:30 - 8:15 ')).toMatchObject({ start: 450, end: 495 });
  });

  it('says what is wrong', () => {
    expect(parseTimeRange('22-06')).toBe('must be a local time range HH:MM-HH:MM such as 22:00-06:00');
    expect(parseTimeRange('25:00-06:00')).toMatch(/00:00 to 23:59/);
    expect(parseTimeRange('24:00-06:00')).toMatch(/00:00 to 23:59/);
    expect(parseTimeRange('10:60-11:00')).toMatch(/00:00 to 23:59/);
    expect(parseTimeRange('06:00-06:00')).toMatch(/must not start and end at the same time/);
  });
});

describe('UploadWindows', () => {
  it('is always open without windows', () => {
    expect(new UploadWindows([], ZONE).state(at('2025-06-01T12:00'))).toEqual({ open: true, changesAt: null });
  });

  it('a window across midnight: open late and early, closed by day, with the next change', () => {
    const w = new UploadWindows(['22:00-06:00'], ZONE);
    expect(w.isOpen(at('2025-06-01T23:30'))).toBe(true);
    expect(w.isOpen(at('2025-06-02T05:59'))).toBe(true);
    expect(w.isOpen(at('2025-06-02T06:00'))).toBe(false);
    const noon = w.state(at('2025-06-02T12:00'));
    expect(noon.open).toBe(false);
    expect(local(noon.changesAt)).toBe('2025-06-02T22:00:00+02:00');
    expect(local(w.state(at('2025-06-02T23:00')).changesAt)).toBe('2025-06-03T06:00:00+02:00');
  });

  it('several windows; overlapping ones close only at the end of the last', () => {
    const w = new UploadWindows(['01:00-03:00', '02:00-04:00', '12:00-13:00'], ZONE);
    expect(local(w.state(at('2025-06-01T01:30')).changesAt)).toBe('2025-06-01T04:00:00+02:00');
    expect(local(w.state(at('2025-06-01T05:00')).changesAt)).toBe('2025-06-01T12:00:00+02:00');
    expect(w.state(at('2025-06-01T12:59')).open).toBe(true);
  });

  it('keeps local hours across DST: the night of the spring change and of the autumn change', () => {
    const w = new UploadWindows(['22:00-06:00'], ZONE);
    // 2025-03-30: clocks go from 02:00 to 03:00 in Berlin; the window still closes at 06:00 local (+02:00).
    expect(local(w.state(at('2025-03-29T23:00')).changesAt)).toBe('2025-03-30T06:00:00+02:00');
    // 2025-10-26: clocks go back from 03:00 to 02:00; closes at 06:00 local (+01:00): a night one hour longer.
    const closes = w.state(at('2025-10-25T23:00')).changesAt!;
    expect(local(closes)).toBe('2025-10-26T06:00:00+01:00');
    expect(closes - at('2025-10-25T22:00')).toBe(9 * 3_600_000);
  });

  it('a window boundary in the hour skipped by DST moves forward', () => {
    const w = new UploadWindows(['02:30-05:00'], ZONE);
    expect(local(w.state(at('2025-03-30T01:00')).changesAt)).toBe('2025-03-30T03:30:00+02:00');
  });

  it('00:00-24:00 never closes', () => {
    expect(new UploadWindows(['00:00-24:00'], ZONE).state(at('2025-06-01T12:00'))).toEqual({ open: true, changesAt: null });
  });
});
