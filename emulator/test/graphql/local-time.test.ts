import { describe, expect, test } from 'vitest';
import { continentOf, hourOfDay } from '../../src/graphql/index.js';

describe('hourOfDay (timeOfDay filters and bins)', () => {
  test('follows the zone across a daylight saving change', () => {
    // Europe/Berlin springs forward at 01:00 UTC on 2025-03-30: 01:59 CET is followed by 03:00 CEST.
    expect(hourOfDay(Date.UTC(2025, 2, 30, 0, 59), 'Europe/Berlin')).toBe(1);
    expect(hourOfDay(Date.UTC(2025, 2, 30, 1, 0), 'Europe/Berlin')).toBe(3);
    // And falls back at 01:00 UTC on 2025-10-26: 02:59 CEST, then 02:00 CET again.
    expect(hourOfDay(Date.UTC(2025, 9, 26, 0, 59), 'Europe/Berlin')).toBe(2);
    expect(hourOfDay(Date.UTC(2025, 9, 26, 1, 0), 'Europe/Berlin')).toBe(2);
  });

  test('handles offsets that are not whole hours and zones west of UTC', () => {
    expect(hourOfDay(Date.UTC(2025, 5, 10, 18, 14), 'Asia/Kathmandu')).toBe(23);
    expect(hourOfDay(Date.UTC(2025, 5, 10, 18, 15), 'Asia/Kathmandu')).toBe(0);
    expect(hourOfDay(Date.UTC(2025, 5, 10, 2, 0), 'America/New_York')).toBe(22);
    expect(hourOfDay(Date.UTC(2025, 5, 10, 2, 0), 'UTC')).toBe(2);
  });
});

describe('continentOf', () => {
  test.each([
    ['Europe/Berlin', 'Europe'],
    ['America/New_York', 'North America'],
    ['America/Sao_Paulo', 'South America'],
    ['America/Argentina/Buenos_Aires', 'South America'],
    ['Australia/Sydney', 'Oceania'],
    ['Pacific/Galapagos', 'South America'],
    ['Atlantic/Reykjavik', 'Europe'],
    ['Asia/Tokyo', 'Asia'],
    ['Africa/Nairobi', 'Africa'],
    ['UTC', null],
    ['Etc/GMT+2', null],
  ])('%s is %s', (zone, continent) => {
    expect(continentOf(zone)).toBe(continent);
  });
});
