import { describe, expect, it } from 'vitest';
import { HttpStatusError } from '../../src/api/errors.js';
import { removeSecrets, scrubSecrets } from '../../src/log/scrub.js';
import { scrubValue } from '../../src/log/scrub-value.js';

const TOKEN = 'abc/def+ghi';

describe('scrubSecrets', () => {
  it('replaces secrets, their URL-encoded form and station path segments', () => {
    expect(scrubSecrets(`token ${TOKEN} or ${encodeURIComponent(TOKEN)}`, [TOKEN])).toBe('token <redacted> or <redacted>');
    expect(scrubSecrets('GET /api/v1/stations/anything-here/detections/7', [])).toBe(
      'GET /api/v1/stations/<token>/detections/7',
    );
    expect(scrubSecrets('http://h/api/v1/stations/abc?x=1 and /stations/def#frag', [])).toBe(
      'http://h/api/v1/stations/<token>?x=1 and /stations/<token>#frag',
    );
    // Already scrubbed text stays as it is.
    expect(scrubSecrets('POST /api/v1/stations/<token>/detections', [])).toBe('POST /api/v1/stations/<token>/detections');
  });

  it('replaces a longer secret before one it contains, and ignores empty secrets', () => {
    expect(removeSecrets('key abcdef', ['abc', 'abcdef', ''])).toBe('key <redacted>');
    expect(removeSecrets('nothing here', [''])).toBe('nothing here');
  });
});

describe('scrubValue', () => {
  it('copies objects with every string scrubbed and leaves the original alone', () => {
    const input = { a: [`x ${TOKEN}`, 1, null, true], b: { c: `/stations/${TOKEN}/` }, when: new Date(0) };
    const out = scrubValue(input, [TOKEN]);
    expect(out).toEqual({ a: ['x <redacted>', 1, null, true], b: { c: '/stations/<token>/' }, when: '1970-01-01T00:00:00.000Z' });
    expect(input.a[0]).toBe(`x ${TOKEN}`);
  });

  it('keeps errors errors of the same class, with message, stack, fields and cause scrubbed', () => {
    const err = new HttpStatusError(`GET /api/v1/stations/${TOKEN}/stats`, {
      status: 401,
      body: { message: `bad ${TOKEN}` },
      serverMessage: `bad ${TOKEN}`,
      errors: undefined,
      html: false,
      retryAfterMs: undefined,
    });
    Object.defineProperty(err, 'cause', { value: new Error(`cause ${TOKEN}`), enumerable: false });
    const out = scrubValue(err, [TOKEN]) as HttpStatusError;
    expect(out).toBeInstanceOf(HttpStatusError);
    expect(out).not.toBe(err);
    expect(out.status).toBe(401);
    expect(out.code).toBe('ERR_HTTP_STATUS');
    expect(out.message).toBe('HTTP 401 : bad <redacted> (GET /api/v1/stations/<token>/stats)');
    expect(out.stack).not.toContain(TOKEN);
    expect(out.stack).toContain('HttpStatusError');
    expect(out.body).toEqual({ message: 'bad <redacted>' });
    expect((out.cause as Error).message).toBe('cause <redacted>');
    expect(err.message).toContain(TOKEN);
  });

  it('reads a stack held by an accessor', () => {
    const err = new Error('plain');
    Object.defineProperty(err, 'stack', { get: () => `Error: ${TOKEN}\n    at x`, configurable: true });
    expect((scrubValue(err, [TOKEN]) as Error).stack).toBe('Error: <redacted>\n    at x');
  });

  it('summarises buffers instead of copying them', () => {
    expect(scrubValue({ data: Buffer.alloc(3) }, [])).toEqual({ data: '[Buffer 3 bytes]' });
  });
});
