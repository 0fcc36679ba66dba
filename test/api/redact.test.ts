import { describe, expect, it } from 'vitest';
import { redactDeep, redactPath, redactSecrets, redactUrl } from '../../src/api/redact.js';

describe('redactUrl / redactPath', () => {
  it('replaces the station segment of URLs and paths, wherever it ends', () => {
    expect(redactUrl('https://svc.example/api/v1/stations/abc123/detections?limit=5')).toBe('https://svc.example/api/v1/stations/<redacted>/detections?limit=5');
    expect(redactPath('POST /api/v1/stations/abc123/soundscapes?timestamp=x')).toBe('POST /api/v1/stations/<redacted>/soundscapes?timestamp=x');
    expect(redactUrl('/api/v1/stations/abc123')).toBe('/api/v1/stations/<redacted>');
    expect(redactUrl('/api/v1/stations/abc123?x=1')).toBe('/api/v1/stations/<redacted>?x=1');
    expect(redactUrl('GET /api/v1/stations/a%2Fb/stats failed')).toBe('GET /api/v1/stations/<redacted>/stats failed');
  });

  it('also removes literal and URL-encoded occurrences of the given token', () => {
    expect(redactUrl('token abc123 in text, /api/v1/detections/1', 'abc123')).toBe('token <redacted> in text, /api/v1/detections/1');
    expect(redactUrl('see a%2Fb%2Bc and a/b+c', 'a/b+c')).toBe('see <redacted> and <redacted>');
  });

  it('leaves paths without a station segment alone and ignores empty secrets', () => {
    expect(redactUrl('/api/v1/species/14', undefined, '')).toBe('/api/v1/species/14');
  });
});

describe('redactSecrets / redactDeep', () => {
  it('redacts every string of a parsed body, keys included', () => {
    const body = { message: 'bad tok-1', errors: { 'tok-1': ['tok-1 unknown'] }, n: 3, list: ['x tok-1'] };
    expect(redactDeep(body, 'tok-1')).toEqual({ message: 'bad <redacted>', errors: { '<redacted>': ['<redacted> unknown'] }, n: 3, list: ['x <redacted>'] });
    expect(body.message).toBe('bad tok-1');
  });

  it('redacts several secrets at once', () => {
    expect(redactSecrets('a-secret and b-secret', 'a-secret', 'b-secret')).toBe('<redacted> and <redacted>');
  });
});
