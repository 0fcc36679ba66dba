import { describe, expect, it } from 'vitest';
import { HttpStatusError, NetworkError } from '../../src/api/errors.js';
import { createLogger } from '../../src/log/logger.js';
import { addSecret } from '../../src/wire/redact.js';

const TOKEN = 'st-8c1f0e6a2b9d4477';
const ADMIN = 'adm-51e0c9aa7f23';

/** A logger writing into an array of parsed lines; `token` and `secrets` are put into the process's secret registry first. */
function capture(options: { level?: string; token?: string; secrets?: string[] } = {}) {
  const raw: string[] = [];
  addSecret(options.token, ...(options.secrets ?? []));
  const logger = createLogger({
    level: options.level ?? 'trace',
    destination: { write: (line: string) => void raw.push(line) },
  });
  // Parsed log lines are arbitrary JSON: tests walk into them freely.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const lines = () => raw.map((l) => JSON.parse(l) as Record<string, any>);
  return { logger, raw, lines, text: () => raw.join('') };
}

describe('createLogger', () => {
  it('writes JSON lines with the level as a label and an ISO time', () => {
    const { logger, lines } = capture({ level: 'info' });
    logger.debug('hidden');
    logger.info({ items: 3 }, 'queued');
    expect(lines()).toHaveLength(1);
    const [line] = lines();
    expect(line).toMatchObject({ level: 'info', msg: 'queued', items: 3 });
    expect(new Date(line.time as string).toISOString()).toBe(line.time);
  });

  it('blanks token-bearing fields by name', () => {
    const { logger, lines, text } = capture();
    logger.info(
      {
        token: 'field-secret-1',
        service: { token: 'field-secret-2', baseUrl: 'http://127.0.0.1:8080' },
        config: { service: { token: 'field-secret-3' } },
        headers: { authorization: 'Bearer field-secret-4', 'x-auth-token': 'field-secret-5' },
        req: { headers: { authorization: 'Bearer field-secret-6' } },
        // Deeper than any listed path: names are blanked at every depth.
        a: { b: { c: { adminToken: 'field-secret-7', headers: { 'x-auth-token': 'field-secret-8' } } } },
        list: [{ token: { value: 'field-secret-9' } }],
      },
      'starting',
    );
    const [line] = lines();
    expect(line.token).toBe('<redacted>');
    expect(line.service).toEqual({ token: '<redacted>', baseUrl: 'http://127.0.0.1:8080' });
    expect(line.headers.authorization).toBe('<redacted>');
    expect(line.a.b.c.adminToken).toBe('<redacted>');
    expect(line.list[0].token).toBe('<redacted>');
    expect(text()).not.toMatch(/field-secret/);
  });

  it('scrubs the token and station paths from messages, format arguments and nested strings', () => {
    const { logger, text, lines } = capture({ token: TOKEN });
    const url = `http://127.0.0.1:8080/api/v1/stations/${TOKEN}/detections?limit=1`;
    logger.info(`POST ${url}`);
    logger.info('fetching %s for %o', url, { note: `token is ${TOKEN}` });
    logger.warn({ url, deep: { a: { b: [{ c: `x ${TOKEN} y` }] } } }, 'slow');
    logger.info({ target: new URL(url) }, 'as URL object');
    logger.info({ encoded: encodeURIComponent(`${TOKEN}`) }, 'encoded');
    logger.info({ path: '/api/v1/stations/42/soundscapes' }, 'admin read by station id');

    const out = text();
    expect(out).not.toContain(TOKEN);
    const all = lines();
    expect(all[0].msg).toBe('POST http://127.0.0.1:8080/api/v1/stations/<redacted>/detections?limit=1');
    expect(all[1].msg).toContain('fetching http://127.0.0.1:8080/api/v1/stations/<redacted>/detections');
    expect(all[1].msg).toContain('token is <redacted>');
    expect(all[2].url).toBe('http://127.0.0.1:8080/api/v1/stations/<redacted>/detections?limit=1');
    expect(all[2].deep.a.b[0].c).toBe('x <redacted> y');
    expect(all[3].target).toBe('http://127.0.0.1:8080/api/v1/stations/<redacted>/detections?limit=1');
    expect(all[5].path).toBe('/api/v1/stations/<redacted>/soundscapes');
  });

  it('scrubs errors: message, stack, cause and own fields, keeping their class and code', () => {
    const { logger, text, lines } = capture({ token: TOKEN });
    const cause = new Error(`connect ECONNREFUSED for /stations/${TOKEN}/stats`);
    const err = new NetworkError(`request to ${TOKEN} failed`, `GET /api/v1/stations/${TOKEN}/stats`, 'ECONNREFUSED', {
      cause,
    });
    expect(err.stack).toContain(TOKEN);

    logger.error(err);
    logger.error({ err }, 'upload failed');
    logger.error(new AggregateError([new Error(`inner ${TOKEN}`)], `several failed at ${TOKEN}`));

    expect(text()).not.toContain(TOKEN);
    const [first, second, third] = lines();
    expect(first.msg).toBe('request to <redacted> failed (GET /api/v1/stations/<redacted>/stats)');
    expect(first.err.type).toBe('NetworkError');
    expect(first.err.code).toBe('ERR_NETWORK_BEFORE_SEND');
    expect(first.err.cause_code).toBe('ECONNREFUSED');
    expect(first.err.stack).toContain('request to <redacted> failed');
    expect(first.err.message).toContain('<redacted>');
    expect(second.msg).toBe('upload failed');
    expect(second.err.type).toBe('NetworkError');
    expect(JSON.stringify(second.err)).toContain('/stations/<redacted>/stats');
    expect(third.err.type).toBe('AggregateError');

    // The caller's error is untouched.
    expect(err.message).toContain(TOKEN);
    expect(cause.message).toContain(TOKEN);
  });

  it('scrubs HTTP errors carrying the response body', () => {
    const { logger, text } = capture({ token: TOKEN });
    const err = new HttpStatusError(`POST /api/v1/stations/${TOKEN}/detections`, {
      status: 403,
      body: { success: false, message: `Invalid token ${TOKEN}` },
      serverMessage: `Invalid token ${TOKEN}`,
      errors: undefined,
      html: false,
      retryAfterMs: undefined,
    });
    logger.warn({ err, body: err.body }, 'rejected');
    expect(text()).not.toContain(TOKEN);
    expect(text()).toContain('Invalid token <redacted>');
  });

  it('scrubs child logger bindings and further secrets, also ones registered after the logger was made', () => {
    const { logger, text } = capture({ token: TOKEN, secrets: [ADMIN] });
    const child = logger.child({ url: `http://h/api/v1/stations/${TOKEN}/x`, auth: `Bearer ${ADMIN}` });
    child.info(`admin ${ADMIN} and token ${TOKEN}`);
    const later = 'late-secret-0a7e';
    addSecret(later);
    logger.info(`now ${later}`);
    child.info({ v: later }, 'child too');
    const out = text();
    expect(out).not.toContain(TOKEN);
    expect(out).not.toContain(ADMIN);
    expect(out).not.toContain(later);
    expect(out.match(/<redacted>/g)!.length).toBeGreaterThanOrEqual(5);
  });

  it('survives circular objects', () => {
    const { logger, lines } = capture({ token: TOKEN });
    const a: Record<string, unknown> = { name: `a ${TOKEN}` };
    a.self = a;
    logger.info({ a }, 'circular');
    expect(lines()[0].a.name).toBe('a <redacted>');
  });
});
