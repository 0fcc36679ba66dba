import { describe, expect, test } from 'vitest';
import { certaintyOf, formatTimestamp, parseTimestamp, probabilityOf, qualityOf, scoreOf } from '../src/index.js';
import { periodStart } from '../src/time.js';

describe('the certainty rule', () => {
  test('probability is a seeded hash in [0, 1] of species and place', () => {
    const p = probabilityOf(1, 'Turdus merula', 52.52, 13.4);
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThanOrEqual(1);
    expect(probabilityOf(1, 'turdus merula', 52.54, 13.41)).toBe(p); // same 0.1° cell, case-insensitive
    const others = [probabilityOf(2, 'Turdus merula', 52.52, 13.4), probabilityOf(1, 'Parus major', 52.52, 13.4)];
    expect(others).not.toEqual([p, p]);
  });

  test('score = 10 × confidence × (0.5 + 0.5 × probability); thresholds 7, 5, 3', () => {
    expect(scoreOf(1, 1)).toBe(10);
    expect(scoreOf(1, 0)).toBe(5);
    expect(scoreOf(0.8, 0.5)).toBe(6);
    expect(certaintyOf(7)).toBe('almost_certain');
    expect(certaintyOf(6.999)).toBe('very_likely');
    expect(certaintyOf(5)).toBe('very_likely');
    expect(certaintyOf(3)).toBe('uncertain');
    expect(certaintyOf(2.999)).toBe('unlikely');
    const q = qualityOf(0, 'Parus major', 0, 0, 0.9);
    expect(q.score).toBe(scoreOf(0.9, q.probability));
    expect(q.certainty).toBe(certaintyOf(q.score));
  });
});

describe('timestamps', () => {
  const at = Date.UTC(2025, 5, 1, 3, 30);
  test('offsets as clients write them', () => {
    for (const text of [
      '2025-06-01T05:30:00.000+02:00',
      '2025-06-01T05:30:00+0200',
      '2025-06-01T05:30:00.000 0200', // "+" decoded to a space
      '2025-06-01T05:30:00 02:00',
      '2025-06-01T03:30:00Z',
      '2025-06-01 03:30:00Z',
      '2025-06-01T05:30+02',
    ]) {
      expect(parseTimestamp(text, 'UTC'), text).toBe(at);
    }
  });

  test("no offset: the station's zone; nonsense: null", () => {
    expect(parseTimestamp('2025-06-01T05:30:00', 'Europe/Berlin')).toBe(at);
    expect(parseTimestamp('2025-06-01 05:30', 'Europe/Berlin')).toBe(at);
    expect(parseTimestamp('2025-13-01T00:00:00Z', 'UTC')).toBeNull();
    expect(parseTimestamp('now', 'UTC')).toBeNull();
    expect(parseTimestamp('1717212600', 'UTC')).toBeNull();
  });

  test('wire format with the station offset', () => {
    expect(formatTimestamp(at, 'UTC')).toBe('2025-06-01T03:30:00.000+00:00');
    expect(formatTimestamp(at, 'America/New_York')).toBe('2025-05-31T23:30:00.000-04:00');
    expect(formatTimestamp(at + 7, 'Asia/Kolkata')).toBe('2025-06-01T09:00:00.007+05:30');
  });

  test('periods', () => {
    expect(periodStart('day', at, 'UTC')).toBe(at - 86_400_000);
    expect(periodStart('week', at, 'UTC')).toBe(at - 7 * 86_400_000);
    expect(periodStart('month', at, 'UTC')).toBe(Date.UTC(2025, 4, 1, 3, 30));
    expect(periodStart('all', at, 'UTC')).toBeUndefined();
  });
});
