import { describe, expect, it } from 'vitest';
import { HttpStatusError } from '../../src/api/errors.js';
import { MIN_SECRET_LENGTH, REDACTED, addSecret, addUrlSecrets, knownSecrets, redactDeep, redactSecrets, redactText, redactUrl } from '../../src/wire/redact.js';

const TOKEN = 'abc/def+ghi';

describe('redactText', () => {
  it('replaces the station segment of URLs and paths, wherever it ends', () => {
    expect(redactText('https://svc.example/api/v1/stations/abc123/detections?limit=5')).toBe('https://svc.example/api/v1/stations/<redacted>/detections?limit=5');
    expect(redactText('POST /api/v1/stations/abc123/soundscapes?timestamp=x')).toBe('POST /api/v1/stations/<redacted>/soundscapes?timestamp=x');
    expect(redactText('/api/v1/stations/abc123')).toBe('/api/v1/stations/<redacted>');
    expect(redactText('http://h/api/v1/stations/abc?x=1 and /stations/def#frag')).toBe('http://h/api/v1/stations/<redacted>?x=1 and /stations/<redacted>#frag');
    expect(redactText('GET /api/v1/stations/a%2Fb/stats failed')).toBe('GET /api/v1/stations/<redacted>/stats failed');
    // Already redacted text stays as it is.
    expect(redactText('POST /api/v1/stations/<redacted>/detections')).toBe('POST /api/v1/stations/<redacted>/detections');
  });

  it('replaces registered secrets (literal and URL-encoded) before cutting station segments', () => {
    expect(redactText(`token ${TOKEN}`)).toBe(`token ${TOKEN}`);
    addSecret(TOKEN);
    expect(redactText(`token ${TOKEN} or ${encodeURIComponent(TOKEN)}`)).toBe('token <redacted> or <redacted>');
    expect(redactText(`GET /api/v1/stations/${TOKEN}/stats`)).toBe('GET /api/v1/stations/<redacted>/stats');
    addSecret('a-secret', 'b-secret');
    expect(redactText('a-secret and b-secret')).toBe('<redacted> and <redacted>');
  });

  it('replaces a longer secret before one it contains, and ignores absent and too short ones', () => {
    addSecret('wxyz', 'wxyz12', '', null, undefined, 'q'.repeat(MIN_SECRET_LENGTH - 1));
    expect(redactText('key wxyz12')).toBe('key <redacted>');
    expect(knownSecrets()).not.toContain('');
    expect(knownSecrets()).not.toContain('q'.repeat(MIN_SECRET_LENGTH - 1));
    expect(redactText('/api/v1/species/14 qqq')).toBe('/api/v1/species/14 qqq');
  });

  it('replaces URL userinfo and credential query values', () => {
    expect(redactText('fetch https://user:pw@svc.example/x failed')).toBe('fetch https://<redacted>@svc.example/x failed');
    expect(redactText('/api/v1/stations/s3cret/detections?token=x&limit=2')).toBe('/api/v1/stations/<redacted>/detections?token=<redacted>&limit=2');
    expect(redactText('/x?access_token=abc&key=k&page=2')).toBe('/x?access_token=<redacted>&key=<redacted>&page=2');
    expect(redactText('mail me at a@b.example')).toBe('mail me at a@b.example');
  });
});

describe('the secret registry', () => {
  it('a credential URL: whole, parsed, its path, query and password; a bare origin is no secret', () => {
    addUrlSecrets('http://hook-user:hook-pass-41@receiver.example:8123/api/webhook/ha-id-77c1?k=q-secret-90');
    addUrlSecrets('https://origin-only.example:9443');
    const text = 'a library said: POST /api/webhook/ha-id-77c1?k=q-secret-90 to https://origin-only.example:9443 with hook-pass-41';
    expect(redactSecrets(text)).toBe('a library said: POST <redacted><redacted> to https://origin-only.example:9443 with <redacted>');
    expect(knownSecrets()).not.toContain('https://origin-only.example:9443');
  });

  it('text that is no URL is kept whole', () => {
    addUrlSecrets('hc-ping.com/not-a-url-5f3a');
    expect(redactSecrets('pinging hc-ping.com/not-a-url-5f3a')).toBe('pinging <redacted>');
  });
});

describe('redactUrl', () => {
  it('keeps scheme, host and port; userinfo, path, query and fragment become the placeholder', () => {
    expect(redactUrl('https://svc.example')).toBe('https://svc.example');
    expect(redactUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
    expect(redactUrl('https://u:tok@svc.example:8443/tok/x?t=tok#tok')).toBe(`https://${REDACTED}@svc.example:8443/${REDACTED}?${REDACTED}#${REDACTED}`);
    expect(redactUrl('not a url with tok')).toBe(REDACTED);
  });
});

describe('redactDeep', () => {
  it('copies objects with every string redacted, keys included, and leaves the original alone', () => {
    const body = { message: 'bad tok-1', errors: { 'tok-1': ['tok-1 unknown'] }, n: 3, list: ['x tok-1', null, true], c: `/stations/${TOKEN}/`, when: new Date(0) };
    addSecret('tok-1', TOKEN);
    expect(redactDeep(body)).toEqual({
      message: 'bad <redacted>',
      errors: { '<redacted>': ['<redacted> unknown'] },
      n: 3,
      list: ['x <redacted>', null, true],
      c: '/stations/<redacted>/',
      when: '1970-01-01T00:00:00.000Z',
    });
    expect(body.message).toBe('bad tok-1');
  });

  it('keeps errors errors of the same class, with message, stack, fields and cause redacted', () => {
    const err = new HttpStatusError(`GET /api/v1/stations/${TOKEN}/stats`, {
      status: 401,
      body: { message: `bad ${TOKEN}` },
      serverMessage: `bad ${TOKEN}`,
      errors: undefined,
      html: false,
      retryAfterMs: undefined,
    });
    Object.defineProperty(err, 'cause', { value: new Error(`cause ${TOKEN}`), enumerable: false });
    const out = redactDeep(err);
    expect(out).toBeInstanceOf(HttpStatusError);
    expect(out).not.toBe(err);
    expect(out.status).toBe(401);
    expect(out.code).toBe('ERR_HTTP_STATUS');
    expect(out.message).toBe('HTTP 401: bad <redacted> (GET /api/v1/stations/<redacted>/stats)');
    expect(out.stack).not.toContain(TOKEN);
    expect(out.stack).toContain('HttpStatusError');
    expect(out.body).toEqual({ message: 'bad <redacted>' });
    expect((out.cause as Error).message).toBe('cause <redacted>');
    expect(err.message).toContain(TOKEN);
  });

  it('reads a stack held by an accessor', () => {
    const err = new Error('plain');
    Object.defineProperty(err, 'stack', { get: () => `Error: ${TOKEN}\n    at x`, configurable: true });
    expect(redactDeep(err).stack).toBe('Error: <redacted>\n    at x');
  });

  it('summarises buffers and bounds cycles', () => {
    expect(redactDeep({ data: Buffer.alloc(3) })).toEqual({ data: '[Buffer 3 bytes]' });
    const loop: Record<string, unknown> = { a: 'x' };
    loop.self = loop;
    const out = redactDeep(loop);
    expect(out.self).toBe(out);
  });
});

describe('the one module', () => {
  it('imports nothing from the agent (the local service shares it)', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(new URL('../../src/wire/redact.ts', import.meta.url), 'utf8');
    expect(text).not.toMatch(/^import /m);
  });
});
