import { describe, expect, it } from 'vitest';
import { buildQuery } from '../../src/api/query.js';
import { parseRetryAfter } from '../../src/api/response.js';

describe('buildQuery', () => {
  it('skips undefined and null, joins lists with commas, writes booleans and numbers', () => {
    expect(buildQuery({ a: undefined, b: null, c: ['avian', 'bat'], d: true, e: false, f: 3_000_000_001, g: 0 })).toBe('?c=avian,bat&d=true&e=false&f=3000000001&g=0');
  });

  it('percent-encodes values, so an ISO offset keeps its plus sign', () => {
    expect(buildQuery({ from: '2024-05-01T06:00:00+02:00', query: 'a&b=c d' })).toBe('?from=2024-05-01T06%3A00%3A00%2B02%3A00&query=a%26b%3Dc%20d');
  });

  it('is empty when nothing is set, and skips empty lists', () => {
    expect(buildQuery({})).toBe('');
    expect(buildQuery({ classification: [] })).toBe('');
  });

  it('refuses non-finite numbers, naming the parameter', () => {
    expect(() => buildQuery({ limit: Number.NaN })).toThrow(/"limit"/);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 30 ', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 01 May 2024 12:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Wed, 01 May 2024 11:00:00 GMT', now)).toBe(0);
  });
  it('leaves anything else undefined', () => {
    for (const v of [undefined, '', '1.5', '-3', 'soon']) expect(parseRetryAfter(v, now)).toBeUndefined();
  });
});
