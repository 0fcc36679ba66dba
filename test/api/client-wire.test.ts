import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServiceClient, ServiceClient } from '../../src/api/client.js';
import type { ResponseInfo } from '../../src/api/transport.js';
import type { UploadApi } from '../../src/upload/ports.js';
import { VERSION } from '../../src/version.js';
import { tempDir } from '../helpers/paths.js';
import { json, startServer } from './test-server.js';
import type { TestServer } from './test-server.js';

/** What goes on the wire, endpoint by endpoint: method, path, query, headers, body. */

const TOKEN = 'stn-T0KEN-abc123';

const SPECIES = {
  id: 14,
  commonName: 'Eurasian Wren',
  scientificName: 'Troglodytes troglodytes',
  color: '#aabbcc',
  classification: 'avian',
  imageUrl: 'https://media.example/14.jpg',
  thumbnailUrl: 'https://media.example/14-t.jpg',
};
const DETECTION = {
  id: 501,
  stationId: 9,
  timestamp: '2024-05-01T06:00:03.000+02:00',
  species: SPECIES,
  lat: 52.1,
  lon: 4.3,
  confidence: 0.91,
  probability: null,
  score: 7.2,
  certainty: 'almost_certain',
  algorithm: '2.4',
  metadata: null,
  soundscape: { id: 77, url: 'https://media.example/77.flac', startTime: 3, endTime: 6, mode: 'analyzerpi' },
};
const SOUNDSCAPE = {
  id: 77,
  stationId: 9,
  duration: 15,
  filesize: 1234,
  sampleRate: 48000,
  timestamp: '2024-05-01T06:00:00.000+02:00',
  mode: 'analyzerpi',
  url: 'https://media.example/77.flac',
};
const CONFIG = {
  id: 9,
  name: 'Garden',
  type: 'analyzerpi',
  timezone: 'Europe/Amsterdam',
  latestDetectionAt: null,
  latestValidDetectionAt: null,
  locationPrivacy: true,
  minConfidence: 0.5,
  minProbability: 0.1,
  minScore: 3,
  minHumanConfidence: 0.04,
};

/** Answers each endpoint with a plausible body, so every method resolves. */
function routes(): Parameters<typeof startServer>[0] {
  return (req, res) => {
    const p = req.url.split('?')[0] ?? '';
    const send = (status: number, body: unknown) => json(status, body)(req, res, undefined as never);
    if (p.endsWith('/stats')) return send(200, { success: true, detections: 12, species: 3 });
    if (p.endsWith('/species/lookup')) return send(200, { success: true, species: { 'Troglodytes troglodytes_Eurasian Wren': SPECIES } });
    if (/\/stations\/[^/]+\/species$/.test(p)) {
      return send(200, { success: true, species: [{ ...SPECIES, detections: { total: 3, almostCertain: 1, veryLikely: 1, uncertain: 1, unlikely: 0 }, latestDetectionAt: DETECTION.timestamp }] });
    }
    if (/\/species\/\d+$/.test(p)) return send(200, { success: true, species: { ...SPECIES, alpha: 'EUWR' } });
    if (p.endsWith('/detections') && req.method === 'POST') return send(201, { success: true, detection: DETECTION });
    if (p.endsWith('/detections')) return send(200, { success: true, detections: [DETECTION] });
    if (/\/detections\/\d+$/.test(p)) return send(200, { success: true, detection: DETECTION });
    if (p.endsWith('/soundscapes') && req.method === 'POST') return send(201, { success: true, soundscape: { ...SOUNDSCAPE, filesize: req.body.length } });
    if (p.endsWith('/soundscapes')) return send(200, { success: true, soundscapes: [SOUNDSCAPE] });
    if (/\/soundscapes\/\d+$/.test(p)) return send(200, { success: true, soundscape: SOUNDSCAPE });
    if (p.endsWith('/config')) return send(200, { success: true, station: CONFIG });
    return send(404, { success: false, message: 'no route' });
  };
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer(routes());
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

function last() {
  expect(server.requests.length).toBeGreaterThan(0);
  return server.requests[server.requests.length - 1];
}

describe('station mode: the token is the path segment', () => {
  let client: ServiceClient;
  const seen: ResponseInfo[] = [];
  beforeAll(() => {
    client = createServiceClient({ baseUrl: server.url, token: TOKEN, onResponse: (i) => seen.push(i) });
  });
  afterAll(() => client.close());

  it('stats: every query parameter, lists comma-joined, ISO offsets percent-encoded', async () => {
    const res = await client.stats({ period: 'week', since: '2024-05-01T00:00:00+02:00', mode: 'live', classification: ['avian', 'bat'] });
    expect(res).toMatchObject({ success: true, detections: 12, species: 3 });
    const r = last();
    expect(r.method).toBe('GET');
    expect(r.url).toBe(`/api/v1/stations/${TOKEN}/stats?period=week&since=2024-05-01T00%3A00%3A00%2B02%3A00&mode=live&classification=avian,bat`);
    expect(r.headers['user-agent']).toBe(`station-agent/${VERSION}`);
    expect(r.headers.accept).toBe('application/json');
    expect(r.headers.authorization).toBeUndefined();
    expect(r.body.length).toBe(0);
  });

  it('is the uploader\'s port (typechecked), probing with a stats read', async () => {
    const api: UploadApi = client;
    await api.probe(AbortSignal.timeout(5_000));
    expect(last().url).toBe(`/api/v1/stations/${TOKEN}/stats`);
  });

  it('stats without a query sends no query string; probe is the same read', async () => {
    await client.stats();
    expect(last().url).toBe(`/api/v1/stations/${TOKEN}/stats`);
    await client.probe();
    expect(last().url).toBe(`/api/v1/stations/${TOKEN}/stats`);
  });

  it('station species listing: every parameter', async () => {
    const res = await client.listStationSpecies({
      period: 'month',
      from: '2024-05-01T00:00:00Z',
      to: '2024-05-02T00:00:00Z',
      since: '2024-04-30T00:00:00Z',
      limit: 50,
      page: 2,
      sort: 'common_name',
      order: 'asc',
      speciesId: 14,
      query: 'wren & co',
      mode: 'recorded',
      locale: 'de',
      classification: 'avian',
    });
    expect(res.species[0]).toMatchObject({ id: 14, detections: { total: 3 } });
    expect(last().url).toBe(
      `/api/v1/stations/${TOKEN}/species?period=month&from=2024-05-01T00%3A00%3A00Z&to=2024-05-02T00%3A00%3A00Z` +
        '&since=2024-04-30T00%3A00%3A00Z&limit=50&page=2&sort=common_name&order=asc&speciesId=14&query=wren%20%26%20co' +
        '&mode=recorded&locale=de&classification=avian',
    );
  });

  it('post detection: JSON body with every documented field, and nothing else', async () => {
    const body = {
      timestamp: '2024-05-01T06:00:03.000+02:00',
      commonName: 'Eurasian Wren',
      scientificName: 'Troglodytes troglodytes',
      lat: 52.1,
      lon: 4.3,
      confidence: 0.91,
      soundscapeId: 77,
      soundscapeStartTime: 3,
      soundscapeEndTime: 6,
    };
    const detection = await client.postDetection({ ...body, internalQueueId: 5 } as typeof body);
    expect(detection.id).toBe(501);
    expect(detection.soundscape?.id).toBe(77);
    const r = last();
    expect(r.method).toBe('POST');
    expect(r.url).toBe(`/api/v1/stations/${TOKEN}/detections`);
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body.toString())).toEqual(body);
  });

  it('post detection: optional fields left out are not sent', async () => {
    await client.postDetection({ timestamp: 'T', commonName: 'C', scientificName: 'S' });
    expect(JSON.parse(last().body.toString())).toEqual({ timestamp: 'T', commonName: 'C', scientificName: 'S' });
  });

  it('list detections: every parameter, booleans as true/false', async () => {
    const res = await client.listDetections({
      limit: 100,
      cursor: 3_000_000_001,
      from: '2024-05-01T00:00:00Z',
      to: '2024-05-01T23:59:59Z',
      speciesId: 14,
      query: 'wren',
      mode: 'analyzerpi',
      locale: 'en',
      classification: ['bat'],
      behavior: ['bat_approach', 'bat_pass'],
      shortlist: true,
    });
    expect(res.detections).toHaveLength(1);
    expect(last().url).toBe(
      `/api/v1/stations/${TOKEN}/detections?limit=100&cursor=3000000001&from=2024-05-01T00%3A00%3A00Z&to=2024-05-01T23%3A59%3A59Z` +
        '&speciesId=14&query=wren&mode=analyzerpi&locale=en&classification=bat&behavior=bat_approach,bat_pass&shortlist=true',
    );
    await client.listDetections({ shortlist: false });
    expect(last().url).toBe(`/api/v1/stations/${TOKEN}/detections?shortlist=false`);
  });

  it('detection info: station-scoped and global paths', async () => {
    expect((await client.getDetection(501)).id).toBe(501);
    expect(last().url).toBe(`/api/v1/stations/${TOKEN}/detections/501`);
    expect((await client.getGlobalDetection(501)).id).toBe(501);
    expect(last().url).toBe('/api/v1/detections/501');
    expect(last().headers.authorization).toBeUndefined();
  });

  it('soundscapes: listing with every parameter, info with and without detections', async () => {
    await client.listSoundscapes({ limit: 10, cursor: 77, from: 'a', to: 'b', speciesId: 14, detections: true });
    expect(last().url).toBe(`/api/v1/stations/${TOKEN}/soundscapes?limit=10&cursor=77&from=a&to=b&speciesId=14&detections=true`);
    expect((await client.getSoundscape(77)).id).toBe(77);
    expect(last().url).toBe(`/api/v1/stations/${TOKEN}/soundscapes/77`);
    await client.getSoundscape(77, { detections: true });
    expect(last().url).toBe(`/api/v1/stations/${TOKEN}/soundscapes/77?detections=true`);
  });

  it('species info and lookup (global paths)', async () => {
    expect((await client.getSpecies(14)).alpha).toBe('EUWR');
    expect(last().url).toBe('/api/v1/species/14');
    const res = await client.lookupSpecies(['Troglodytes troglodytes_Eurasian Wren'], ['id', 'commonName']);
    expect(res.species['Troglodytes troglodytes_Eurasian Wren']?.id).toBe(14);
    expect(last().method).toBe('POST');
    expect(last().url).toBe('/api/v1/species/lookup');
    expect(JSON.parse(last().body.toString())).toEqual({ species: ['Troglodytes troglodytes_Eurasian Wren'], fields: ['id', 'commonName'] });
    await client.lookupSpecies(['A_b']);
    expect(JSON.parse(last().body.toString())).toEqual({ species: ['A_b'] });
  });

  it('config update: every documented field', async () => {
    const body = { name: 'Garden', locationPrivacy: false, minConfidence: 0.7, minProbability: 0.2, minScore: 4.5, minHumanConfidence: 0.05 };
    const station = await client.updateConfig(body);
    expect(station).toMatchObject({ id: 9, name: 'Garden' });
    expect(last().url).toBe(`/api/v1/stations/${TOKEN}/config`);
    expect(JSON.parse(last().body.toString())).toEqual(body);
  });

  it('the onResponse hook sees redacted paths, statuses and byte counts', async () => {
    seen.length = 0;
    await client.postDetection({ timestamp: 'T', commonName: 'C', scientificName: 'S' });
    expect(seen).toHaveLength(1);
    const info = seen[0];
    expect(info).toMatchObject({ method: 'POST', path: '/api/v1/stations/<redacted>/detections', status: 201 });
    expect(info.bytesSent).toBe(last().body.length);
    expect(info.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(seen)).not.toContain(TOKEN);
  });
});

describe('soundscape upload', () => {
  let client: ServiceClient;
  let tmp: ReturnType<typeof tempDir>;
  const seen: ResponseInfo[] = [];
  beforeEach(() => {
    tmp = tempDir('api-upload-');
    client = createServiceClient({ baseUrl: server.url, token: TOKEN, onResponse: (i) => seen.push(i) });
  });
  afterEach(async () => {
    await client.close();
    tmp.cleanup();
  });

  it('streams a file with Content-Type audio/flac, its Content-Length, the timestamp in the query', async () => {
    const file = path.join(tmp.dir, 'a.flac');
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    writeFileSync(file, bytes);
    seen.length = 0;
    const soundscape = await client.uploadSoundscape({ timestamp: '2024-05-01T06:00:00.000+02:00', body: file });
    expect(soundscape).toMatchObject({ id: 77, filesize: bytes.length });
    const r = last();
    expect(r.method).toBe('POST');
    expect(r.url).toBe(`/api/v1/stations/${TOKEN}/soundscapes?timestamp=2024-05-01T06%3A00%3A00.000%2B02%3A00`);
    expect(r.headers['content-type']).toBe('audio/flac');
    expect(r.headers['content-length']).toBe(String(bytes.length));
    expect(r.body.equals(bytes)).toBe(true);
    // Streamed in pieces, not written as one buffer.
    expect(r.chunks).toBeGreaterThan(1);
    expect(seen[0]).toMatchObject({ status: 201, bytesSent: bytes.length, path: expect.stringContaining('/stations/<redacted>/soundscapes?timestamp=') });
  });

  it('sends audio in memory (`data`) as it is: its bytes, its Content-Length, counted as sent', async () => {
    const bytes = randomBytes(800 * 1024 + 3);
    seen.length = 0;
    const soundscape = await client.uploadSoundscape({ timestamp: '2024-05-01T06:00:00Z', data: bytes });
    expect(soundscape).toMatchObject({ id: 77, filesize: bytes.length });
    const r = last();
    expect(r.headers['content-type']).toBe('audio/flac');
    expect(r.headers['content-length']).toBe(String(bytes.length));
    expect(r.headers['transfer-encoding']).toBeUndefined();
    expect(r.body.equals(bytes)).toBe(true);
    expect(seen[0]).toMatchObject({ status: 201, bytesSent: bytes.length });
  });

  it('accepts `file` (the uploader port) as well as `body`', async () => {
    const file = path.join(tmp.dir, 'b.flac');
    writeFileSync(file, Buffer.from('fLaC-bytes'));
    await client.uploadSoundscape({ timestamp: '2024-05-01T06:00:00Z', file });
    expect(last().body.toString()).toBe('fLaC-bytes');
  });

  it('sends a stream of unknown size chunked, with Content-Length when its size is given', async () => {
    async function* slowly() {
      yield Buffer.from('abc');
      // The stream has not ended when the request head is written, so its length is unknown.
      await new Promise((resolve) => setTimeout(resolve, 20));
      yield Buffer.from('def');
    }
    seen.length = 0;
    await client.uploadSoundscape({ timestamp: 'T', body: Readable.from(slowly()) });
    expect(last().headers['transfer-encoding']).toBe('chunked');
    expect(last().headers['content-length']).toBeUndefined();
    expect(last().body.toString()).toBe('abcdef');
    expect(seen[0]?.bytesSent).toBe(6);
    await client.uploadSoundscape({ timestamp: 'T', body: Readable.from(slowly()), size: 6, contentType: 'audio/wav' });
    expect(last().headers['content-length']).toBe('6');
    expect(last().headers['content-type']).toBe('audio/wav');
    expect(last().body.toString()).toBe('abcdef');
  });

  it('a missing spool file fails locally with ENOENT and sends nothing', async () => {
    const before = server.requests.length;
    await expect(client.uploadSoundscape({ timestamp: 'T', body: path.join(tmp.dir, 'gone.flac') })).rejects.toMatchObject({ code: 'ENOENT' });
    expect(server.requests.length).toBe(before);
  });
});

describe('admin mode: station id in the path, the admin token only in Authorization', () => {
  const ADMIN = 'adm-S3CRET-xyz';
  let client: ServiceClient;
  beforeAll(() => {
    client = new ServiceClient({ baseUrl: server.url, adminToken: ADMIN, stationId: 42 });
  });
  afterAll(() => client.close());

  it('puts the numeric station id in the path and the admin token in the Authorization header', async () => {
    await client.postDetection({ timestamp: 'T', commonName: 'C', scientificName: 'S' });
    const r = last();
    expect(r.url).toBe('/api/v1/stations/42/detections');
    expect(r.headers.authorization).toBe(`Bearer ${ADMIN}`);
    expect(r.url).not.toContain(ADMIN);
    expect(r.body.toString()).not.toContain(ADMIN);
    await client.listSoundscapes({ limit: 1 });
    expect(last().url).toBe('/api/v1/stations/42/soundscapes?limit=1');
    expect(last().url).not.toContain(ADMIN);
  });
});

describe('options', () => {
  it('a base URL with a path prefix keeps the prefix', async () => {
    const client = createServiceClient({ baseUrl: `${server.url}/proxy/`, token: TOKEN });
    try {
      await client.getSpecies(14);
      expect(last().url).toBe('/proxy/api/v1/species/14');
    } finally {
      await client.close();
    }
  });

  it('URL-encodes a token with reserved characters into one path segment', async () => {
    const client = createServiceClient({ baseUrl: server.url, token: 'a/b c+d?' });
    try {
      await client.stats();
      expect(last().url).toBe('/api/v1/stations/a%2Fb%20c%2Bd%3F/stats');
    } finally {
      await client.close();
    }
  });

  it('a custom user agent', async () => {
    const client = createServiceClient({ baseUrl: server.url, token: TOKEN, userAgent: 'station-agent/9.9.9' });
    try {
      await client.stats();
      expect(last().headers['user-agent']).toBe('station-agent/9.9.9');
    } finally {
      await client.close();
    }
  });

  it('refuses contradictory or invalid options with a message naming the option', () => {
    expect(() => createServiceClient({ baseUrl: 'not a url', token: TOKEN })).toThrow(/baseUrl/);
    expect(() => createServiceClient({ baseUrl: 'ftp://x', token: TOKEN })).toThrow(/http or https/);
    expect(() => createServiceClient({ baseUrl: server.url, token: TOKEN, adminToken: 'a', stationId: 1 })).toThrow(/not both/);
    expect(() => createServiceClient({ baseUrl: server.url, adminToken: 'a', stationId: 0 })).toThrow(/stationId/);
    expect(() => createServiceClient({ baseUrl: server.url, stationId: 3 })).toThrow(/adminToken/);
    expect(() => createServiceClient({ baseUrl: server.url, token: TOKEN, timeoutMs: -1 })).toThrow(/timeoutMs/);
    // A pasted station URL is not echoed with its token.
    expect(() => createServiceClient({ baseUrl: `nope/stations/${TOKEN}/x` })).toThrow(expect.objectContaining({ message: expect.not.stringContaining(TOKEN) }));
  });

  it('station endpoints without credentials fail before sending; global ones work', async () => {
    const client = createServiceClient({ baseUrl: server.url });
    try {
      await expect(client.stats()).rejects.toThrow(TypeError);
      expect((await client.getGlobalDetection(501)).id).toBe(501);
    } finally {
      await client.close();
    }
  });

  it('rejects ids that are not integers before sending', async () => {
    const client = createServiceClient({ baseUrl: server.url, token: TOKEN });
    try {
      await expect(client.getDetection(1.5)).rejects.toThrow(/detection id/);
      await expect(client.getSoundscape(Number.NaN)).rejects.toThrow(/soundscape id/);
    } finally {
      await client.close();
    }
  });
});
