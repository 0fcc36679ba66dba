import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src/api/client.js';
import type { ServiceClient } from '../../src/api/client.js';
import { HttpStatusError, NetworkError, OutcomeUnknownError, ServiceRejectedError } from '../../src/api/errors.js';
import type { ServiceClientOptions } from '../../src/api/transport.js';
import { tempDir } from '../helpers/paths.js';
import { closedPort, expectNoSecret, html, json, startRawServer, startServer, startSilentTcp } from './test-server.js';
import { until } from '../helpers/until.js';

/**
 * Transport failures and odd answers, each from a real server misbehaving on
 * purpose. The split between "never sent" (NetworkError: retry) and "maybe stored"
 * (OutcomeUnknownError: reconcile first) is what keeps uploads exactly-once.
 */

const TOKEN = 'stn-S3CRET-tok-987';
const DETECTION = { timestamp: '2024-05-01T06:00:03.000+02:00', commonName: 'Eurasian Wren', scientificName: 'Troglodytes troglodytes' };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function client(baseUrl: string, extra: Partial<ServiceClientOptions> = {}): ServiceClient {
  const c = createServiceClient({ baseUrl, token: TOKEN, timeoutMs: 2_000, ...extra });
  cleanups.push(() => c.close());
  return c;
}

async function server(...args: Parameters<typeof startServer>) {
  const s = await startServer(...args);
  cleanups.push(() => s.close());
  return s;
}

async function failure(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the call should have failed').toBeInstanceOf(Error);
  expectNoSecret(err, TOKEN);
  return err as Error;
}

describe('never sent: NetworkError (ERR_NETWORK_BEFORE_SEND)', () => {
  it('connection refused, for a read and for a create', async () => {
    const c = client(`http://127.0.0.1:${await closedPort()}`);
    for (const call of [c.stats(), c.postDetection(DETECTION)]) {
      const err = await failure(call);
      expect(err).toBeInstanceOf(NetworkError);
      expect(err).toMatchObject({ code: 'ERR_NETWORK_BEFORE_SEND', cause_code: 'ECONNREFUSED' });
    }
  });

  it('host name not found', async () => {
    const err = await failure(client('http://station-agent-test.invalid').postDetection(DETECTION));
    expect(err).toBeInstanceOf(NetworkError);
    expect(['ENOTFOUND', 'EAI_AGAIN']).toContain((err as NetworkError).cause_code);
  });

  it('connect timeout (a TLS handshake the peer never answers)', async () => {
    const silent = await startSilentTcp();
    cleanups.push(() => silent.close());
    const err = await failure(client(`https://127.0.0.1:${silent.port}`, { connectTimeoutMs: 200 }).postDetection(DETECTION));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ cause_code: 'ERR_CONNECT_TIMEOUT' });
    expect(err.message).toContain('connect timed out');
  });

  it('a signal aborted before the call sends nothing', async () => {
    const s = await server(json(201, { success: true, detection: { id: 1 } }));
    const err = await failure(client(s.url).postDetection(DETECTION, AbortSignal.abort()));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ cause_code: 'ABORTED' });
    expect(s.requests).toHaveLength(0);
  });

  it('aborting a request still queued for a connection: nothing sent', async () => {
    let release: () => void = () => {};
    const s = await startRawServer((req, res) => {
      req.resume();
      // Hold the only connection until released.
      release = () => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, detection: { id: 1 } }));
    });
    cleanups.push(() => s.close());
    const c = client(s.url, { connections: 1 });
    const first = c.postDetection(DETECTION);
    await until('the request at the server', () => s.requests.length === 1, 5_000);
    const ac = new AbortController();
    const second = c.postDetection(DETECTION, { signal: ac.signal });
    ac.abort();
    const err = await failure(second);
    expect(err).toBeInstanceOf(NetworkError);
    release();
    await expect(first).resolves.toMatchObject({ id: 1 });
    expect(s.requests).toHaveLength(1);
  });
});

describe('maybe stored: OutcomeUnknownError (ERR_OUTCOME_UNKNOWN)', () => {
  it('the server reads the whole detection, then destroys the socket', async () => {
    const s = await server((_req, res) => res.socket?.destroy());
    const err = await failure(client(s.url).postDetection(DETECTION));
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err as OutcomeUnknownError).cause_code).toBe('ECONNRESET');
    expect(err.message).toContain('socket hang up');
    // It did arrive: exactly the case a blind retry would duplicate.
    expect(s.requests).toHaveLength(1);
    expect(JSON.parse(s.requests[0].body.toString())).toMatchObject(DETECTION);
  });

  it('a reused keep-alive connection dies under a POST', async () => {
    let n = 0;
    const s = await server((_req, res) => {
      if (++n === 1) return json(200, { success: true, detections: 0, species: 0 })(_req, res, undefined as never);
      res.socket?.destroy();
    });
    const c = client(s.url);
    await c.stats();
    const err = await failure(c.postDetection(DETECTION));
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(s.requests).toHaveLength(2);
  });

  it('the server cuts the connection in the middle of a soundscape upload', async () => {
    const tmp = tempDir('api-err-');
    cleanups.push(tmp.cleanup);
    const file = path.join(tmp.dir, 'big.flac');
    writeFileSync(file, Buffer.alloc(8 * 1024 * 1024, 7));
    const s = await startRawServer((req) => {
      req.once('data', () => req.socket.destroy());
    });
    cleanups.push(() => s.close());
    const err = await failure(client(s.url).uploadSoundscape({ timestamp: '2024-05-01T06:00:00Z', body: file }));
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(['ECONNRESET', 'EPIPE']).toContain((err as OutcomeUnknownError).cause_code);
  });

  it('no response headers within the timeout', async () => {
    const s = await server(() => {
      /* hang */
    });
    const err = await failure(client(s.url, { timeoutMs: 200 }).postDetection(DETECTION));
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    // The total deadline (system/deadline.ts) ends it; the socket's idle timeout would have too.
    expect(err).toMatchObject({ cause_code: 'ERR_DEADLINE' });
    expect(s.requests).toHaveLength(1);
  });

  it('a per-call timeout overrides the client default', async () => {
    const s = await server(() => {
      /* hang */
    });
    const err = await failure(client(s.url, { timeoutMs: 60_000 }).stats({}, { timeoutMs: 150 }));
    expect(err).toMatchObject({ code: 'ERR_OUTCOME_UNKNOWN', cause_code: 'ERR_DEADLINE' });
  });

  it('the response body stalls past the timeout', async () => {
    const s = await server((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': '200' });
      res.write('{"success":true,');
    });
    const err = await failure(client(s.url, { timeoutMs: 200 }).postDetection(DETECTION));
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ cause_code: 'ERR_DEADLINE' });
  });

  it('the response is cut off after the headers', async () => {
    const s = await server((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': '200' });
      res.write('{"success":true,', () => res.socket?.destroy());
    });
    const err = await failure(client(s.url).postDetection(DETECTION));
    expect(err).toBeInstanceOf(OutcomeUnknownError);
  });

  it('aborting an in-flight POST (shutdown)', async () => {
    const s = await server(() => {
      /* hang */
    });
    const ac = new AbortController();
    const call = client(s.url).postDetection(DETECTION, ac.signal);
    await until('the request at the server', () => s.requests.length === 1, 5_000);
    ac.abort();
    const err = await failure(call);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ cause_code: 'ABORTED' });
  });

  it('a 2xx whose body is not JSON (a captive portal, a truncated proxy answer)', async () => {
    for (const handler of [html(200, '<html><title>Login to WiFi</title></html>'), json(201, ''), json(201, '{"success":tr')]) {
      const s = await server(handler);
      const err = await failure(client(s.url).postDetection(DETECTION));
      expect(err).toBeInstanceOf(OutcomeUnknownError);
    }
  });
});

describe('complete non-2xx answers: HttpStatusError (ERR_HTTP_STATUS)', () => {
  it('a gateway 504 HTML page', async () => {
    const s = await server(html(504, '<!DOCTYPE html>\n<html><head><title>504 Gateway Time-out</title></head><body><h1>504</h1></body></html>'));
    const err = await failure(client(s.url).postDetection(DETECTION));
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err).toMatchObject({ code: 'ERR_HTTP_STATUS', status: 504, html: true, serverMessage: '504 Gateway Time-out', body: null });
    expect(err.message).toContain('HTML');
  });

  it('an HTML page without a text/html content type is still recognised', async () => {
    const s = await server((_req, res) => res.writeHead(502, { 'content-type': 'text/plain' }).end('<html><body>Bad Gateway</body></html>'));
    const err = await failure(client(s.url).stats());
    expect(err).toMatchObject({ status: 502, html: true });
  });

  it('429 with Retry-After in seconds', async () => {
    const s = await server(json(429, { success: false, message: 'slow down' }, { 'retry-after': '120' }));
    const err = await failure(client(s.url).postDetection(DETECTION));
    expect(err).toMatchObject({ status: 429, retryAfterMs: 120_000, serverMessage: 'slow down', html: false });
  });

  it('503 with Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 3_600_000).toUTCString();
    const s = await server(html(503, '<html><title>Maintenance</title></html>', { 'retry-after': at }));
    const err = (await failure(client(s.url).stats())) as HttpStatusError;
    expect(err.status).toBe(503);
    expect(err.retryAfterMs).toBeGreaterThan(3_000_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(3_600_000);
  });

  it('an unparseable Retry-After is left out', async () => {
    const s = await server(json(429, { success: false }, { 'retry-after': 'soon-ish' }));
    const err = await failure(client(s.url).stats());
    expect(err).toMatchObject({ status: 429, retryAfterMs: undefined });
  });

  it('422 with the errors object', async () => {
    const s = await server(json(422, { success: false, errors: { commonName: ["can't be blank"], species: ['must exist'] } }));
    const err = await failure(client(s.url).postDetection(DETECTION));
    expect(err).toMatchObject({ status: 422, errors: { commonName: ["can't be blank"], species: ['must exist'] } });
    expect(err.message).toContain("commonName can't be blank");
  });

  it('422 of the config update carries no errors object', async () => {
    const s = await server(json(422, { success: false }));
    const err = await failure(client(s.url).updateConfig({ minConfidence: 0.1 }));
    expect(err).toMatchObject({ status: 422, errors: undefined, serverMessage: undefined });
  });

  it('404 of the global detection lookup carries the message', async () => {
    const s = await server(json(404, { success: false, message: 'Detection not found' }));
    const err = await failure(client(s.url).getGlobalDetection(5));
    expect(err).toMatchObject({ status: 404, serverMessage: 'Detection not found' });
  });

  it('a 415 with success: true and a null id is the status, not a success', async () => {
    const s = await server(json(415, { success: true, soundscape: { id: null, url: null } }));
    const tmp = tempDir('api-err-');
    cleanups.push(tmp.cleanup);
    const file = path.join(tmp.dir, 'a.wav');
    writeFileSync(file, Buffer.from('RIFF....WAVE'));
    const err = await failure(client(s.url).uploadSoundscape({ timestamp: '2024-05-01T06:00:00Z', body: file, contentType: 'audio/wav' }));
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err).toMatchObject({ status: 415, html: false });
  });

  it('a redirect is not followed; the message says where it points', async () => {
    const s = await server((_req, res) => res.writeHead(301, { location: `https://elsewhere.example/api/v1/stations/${TOKEN}/detections` }).end());
    const err = await failure(client(s.url).postDetection(DETECTION));
    expect(err).toMatchObject({ status: 301, serverMessage: 'redirected to https://elsewhere.example/api/v1/stations/<redacted>/detections' });
    expect(s.requests).toHaveLength(1);
  });

  it('a server that echoes the token in its message does not leak it', async () => {
    const s = await server((req, res) => json(403, { success: false, message: `Unknown station token ${TOKEN}`, errors: { token: [`${TOKEN} is invalid`] } })(req, res, undefined as never));
    const err = await failure(client(s.url).stats());
    expect(err).toMatchObject({ status: 403, serverMessage: 'Unknown station token <redacted>' });
    expect(JSON.stringify((err as HttpStatusError).body)).not.toContain(TOKEN);
    expect((err as HttpStatusError).request).toBe('GET /api/v1/stations/<redacted>/stats');
  });
});

describe('2xx without what was created: ServiceRejectedError (ERR_SERVICE_REJECTED)', () => {
  it('201 with a null detection id', async () => {
    const s = await server(json(201, { success: true, detection: { id: null } }));
    const err = await failure(client(s.url).postDetection(DETECTION));
    expect(err).toBeInstanceOf(ServiceRejectedError);
    expect(err).toMatchObject({ code: 'ERR_SERVICE_REJECTED', status: 201 });
    expect(err.message).toContain('id');
  });

  it('201 with a null soundscape id', async () => {
    const s = await server(json(201, { success: true, soundscape: { id: null } }));
    const err = await failure(client(s.url).uploadSoundscape({ timestamp: 'T', body: await tinyFile() }));
    expect(err).toBeInstanceOf(ServiceRejectedError);
  });

  it('201 without the created object', async () => {
    const s = await server(json(201, { success: true }));
    expect(await failure(client(s.url).postDetection(DETECTION))).toBeInstanceOf(ServiceRejectedError);
  });

  it('200 with success: false and a message', async () => {
    const s = await server(json(200, { success: false, message: 'station inactive' }));
    const err = await failure(client(s.url).updateConfig({ name: 'x' }));
    expect(err).toBeInstanceOf(ServiceRejectedError);
    expect(err.message).toContain('station inactive');
  });

  it('a listing without its array is refused, never read as empty', async () => {
    const s = await server(json(200, { success: true }));
    const err = await failure(client(s.url).listDetections({}));
    expect(err).toBeInstanceOf(ServiceRejectedError);
    expect(err.message).toContain('"detections"');
  });
});

describe('lenient parsing where the real service drifted', () => {
  it('float duration, ids beyond 2^31, ids as numeric strings, extra fields, missing optional fields', async () => {
    const big = 2 ** 31 + 12345;
    const s = await server(
      json(200, {
        success: true,
        newTopLevelField: 'kept',
        soundscapes: [
          { id: big, stationId: '77', duration: 14.976, filesize: '2048', sampleRate: 48000, timestamp: 'T', mode: 'analyzerpi', url: 'u', waveform: [1, 2] },
          { id: '9007199254740991', stationId: 77, duration: 15, timestamp: 'T2' },
        ],
      }),
    );
    const res = await client(s.url).listSoundscapes();
    expect(res.soundscapes[0]).toMatchObject({ id: big, stationId: 77, duration: 14.976, filesize: 2048, waveform: [1, 2] });
    expect(res.soundscapes[1]).toMatchObject({ id: Number.MAX_SAFE_INTEGER, duration: 15 });
    expect(res.soundscapes[1]?.url).toBeUndefined();
    expect((res as unknown as Record<string, unknown>).newTopLevelField).toBe('kept');
  });

  it('a created detection whose id is a numeric string beyond 2^31', async () => {
    const s = await server(
      json(201, { success: true, detection: { id: '3000000001', stationId: '12', species: { id: '14', commonName: 'Wren' }, confidence: '0.8', shortlist: [{ speciesId: '3', weight: '0.5' }] } }),
    );
    const d = await client(s.url).postDetection(DETECTION);
    expect(d.id).toBe(3_000_000_001);
    expect(d.stationId).toBe(12);
    expect(d.species.id).toBe(14);
    expect(d.confidence).toBe(0.8);
    expect(d.shortlist?.[0]).toEqual({ speciesId: 3, weight: 0.5 });
  });

  it('a created id that is there but no id the agent can keep (a word, beyond 2^53, negative) is an unknown outcome, not a refusal (issue 35)', async () => {
    for (const raw of ['"abc"', '"12abc"', '9007199254740993', '-4', '1.5']) {
      const s = await server((_req, res) => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(`{"success":true,"detection":{"id":${raw}}}`);
      });
      const err = await failure(client(s.url).postDetection(DETECTION));
      expect(err, raw).toBeInstanceOf(OutcomeUnknownError);
      expect(err, raw).toMatchObject({ code: 'ERR_OUTCOME_UNKNOWN', cause_code: 'ERR_ODD_ID' });
      expect(err.message).toContain('which is no id the agent can keep');
    }
  });

  it('the drifted shapes: no success on a 201, ids as strings, duration as a string or float, extension: null', async () => {
    const s = await server(
      json(201, { extension: null, revision: 2, soundscape: { id: '3000000007', stationId: '12', duration: '15', filesize: 2048, extension: null } }),
    );
    const sc = await client(s.url).uploadSoundscape({ timestamp: '2024-05-01T06:00:00Z', body: await tinyFile() });
    expect(sc).toMatchObject({ id: 3_000_000_007, stationId: 12, duration: 15, extension: null });
    const d = await server(json(201, { detection: { id: '3000000008', stationId: '12', species: { id: '4' }, soundscape: { id: '3000000007', startTime: '3.0' } } }));
    const detection = await client(d.url).postDetection(DETECTION);
    expect(detection).toMatchObject({ id: 3_000_000_008, species: { id: 4 }, soundscape: { id: 3_000_000_007, startTime: 3 } });
  });

  it('where the meaning is not clear, a refusal naming the field: success false, no id, no object', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ success: false, detection: { id: 5 } }, 'success'],
      [{ detection: { stationId: 12 } }, 'detection.id'],
      [{ extension: null }, 'detection'],
    ];
    for (const [body, field] of cases) {
      const s = await server(json(201, body));
      const err = await failure(client(s.url).postDetection(DETECTION));
      expect(err, JSON.stringify(body)).toMatchObject({ code: 'ERR_SERVICE_REJECTED', field });
    }
  });

  it('the fallback list of an empty detection listing is kept apart', async () => {
    const s = await server(json(200, { success: true, detections: [], unfiltered_detections: [{ id: '5' }] }));
    const res = await client(s.url).listDetections({ speciesId: 1 });
    expect(res.detections).toEqual([]);
    expect(res.unfiltered_detections?.[0]?.id).toBe(5);
  });
});

describe('the onResponse hook on failures', () => {
  it('reports status 0 and the error code when nothing came back, the status otherwise', async () => {
    const seen: Array<{ status: number; errorCode?: string; path: string }> = [];
    const c = client(`http://127.0.0.1:${await closedPort()}`, { onResponse: (i) => seen.push(i) });
    await failure(c.stats());
    await failure(c.postDetection(DETECTION));
    expect(seen[0]).toMatchObject({ status: 0, errorCode: 'ERR_NETWORK_BEFORE_SEND', path: '/api/v1/stations/<redacted>/stats' });
    expect(seen[1]).toMatchObject({ method: 'POST', status: 0, bytesSent: 0 });
    const s = await server(json(429, { success: false }));
    const c2 = client(s.url, {
      onResponse: (i) => {
        seen.push(i);
        throw new Error('a broken hook must not break the call');
      },
    });
    await failure(c2.stats());
    expect(seen[2]).toMatchObject({ status: 429, errorCode: 'ERR_HTTP_STATUS' });
  });
});

async function tinyFile(): Promise<string> {
  const tmp = tempDir('api-err-');
  cleanups.push(tmp.cleanup);
  const file = path.join(tmp.dir, 'tiny.flac');
  writeFileSync(file, Buffer.from('fLaC'));
  return Promise.resolve(file);
}

