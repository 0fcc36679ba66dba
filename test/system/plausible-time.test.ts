import { describe, expect, it } from 'vitest';
import { isPlausibleTimestamp, timeImplausibility } from '../../src/system/plausible-time.js';

describe('isPlausibleTimestamp', () => {
  const now = new Date('2025-06-01T12:00:00Z');

  it('accepts times from 2020 up to one day ahead', () => {
    expect(isPlausibleTimestamp(new Date('2020-01-01T00:00:00Z'), now)).toBe(true);
    expect(isPlausibleTimestamp(new Date('2025-06-01T11:59:00Z'), now)).toBe(true);
    expect(isPlausibleTimestamp(new Date('2025-06-02T12:00:00Z'), now)).toBe(true);
  });

  it('says why a time is implausible', () => {
    expect(timeImplausibility(new Date('2019-12-31T23:59:59Z'), now)).toBe('before-earliest');
    expect(timeImplausibility(new Date('2025-06-02T12:00:01Z'), now)).toBe('too-far-ahead');
    expect(timeImplausibility(new Date('not a date'), now)).toBe('invalid');
    expect(timeImplausibility(now, now)).toBeUndefined();
  });

  it('rejects unset clocks, the far future and invalid dates', () => {
    expect(isPlausibleTimestamp(new Date('2019-12-31T23:59:59Z'), now)).toBe(false);
    expect(isPlausibleTimestamp(new Date(0), now)).toBe(false);
    expect(isPlausibleTimestamp(new Date('2025-06-02T12:00:01Z'), now)).toBe(false);
    expect(isPlausibleTimestamp(new Date('not a date'), now)).toBe(false);
  });

  it('measures against the current time by default', () => {
    expect(isPlausibleTimestamp(new Date())).toBe(true);
    expect(isPlausibleTimestamp(new Date(Date.now() + 2 * 86_400_000))).toBe(false);
  });
});
