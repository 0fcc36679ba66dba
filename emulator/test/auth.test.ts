import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN, detectionBody, OTHER_TOKEN, startService, TOKEN, type TestService } from './helpers.js';

const DENIED = { success: false, message: 'Access denied' };
const bearer = { authorization: `Bearer ${ADMIN}` };

let s: TestService;
let inactiveId: number;
let activeId: number;
beforeAll(async () => {
  s = await startService({
    stations: [
      { token: TOKEN, name: 'Garden' },
      { token: OTHER_TOKEN, name: 'Retired', active: false },
    ],
  });
  activeId = s.emulator.store.stations.byToken(TOKEN)!.id;
  inactiveId = s.emulator.store.stations.byToken(OTHER_TOKEN)!.id;
});
afterAll(async () => {
  await s.stop();
});

describe('station tokens', () => {
  test('unknown token: 403 "Access denied", on every station endpoint', async () => {
    for (const [method, path] of [
      ['GET', '/detections'],
      ['POST', '/detections'],
      ['GET', '/soundscapes'],
      ['POST', '/soundscapes?timestamp=2025-06-01T00:00:00Z'],
      ['GET', '/stats'],
      ['GET', '/species'],
      ['POST', '/config'],
    ] as const) {
      const r =
        method === 'GET'
          ? await s.get(s.station(path, 'nope'))
          : await s.post(s.station(path, 'nope'), path.startsWith('/soundscapes') ? { body: Buffer.from('fLaC') } : { json: {} });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body).toEqual(DENIED);
    }
  });

  test('inactive station: 403 with its token', async () => {
    const r = await s.get(s.station('/detections', OTHER_TOKEN));
    expect(r.status).toBe(403);
    expect(r.body).toEqual(DENIED);
  });

  test('a numeric station id without the admin token is refused', async () => {
    expect((await s.get(`/api/v1/stations/${activeId}/stats`)).status).toBe(403);
  });
});

describe('admin token', () => {
  test('from Authorization: Bearer or X-Auth-Token: numeric ids work and inactive stations are reachable', async () => {
    const byBearer = await s.get(`/api/v1/stations/${inactiveId}/stats`, { headers: bearer });
    expect(byBearer.status).toBe(200);
    const byHeader = await s.get(`/api/v1/stations/${activeId}/stats`, { headers: { 'x-auth-token': ADMIN } });
    expect(byHeader.status).toBe(200);
    const inactiveByToken = await s.get(s.station('/stats', OTHER_TOKEN), { headers: bearer });
    expect(inactiveByToken.status).toBe(200);
    const write = await s.post(`/api/v1/stations/${inactiveId}/detections`, { json: detectionBody(), headers: bearer });
    expect(write.status).toBe(201);
    expect(write.body.detection.stationId).toBe(inactiveId);
  });

  test('a wrong admin token grants nothing', async () => {
    const r = await s.get(`/api/v1/stations/${activeId}/stats`, { headers: { authorization: 'Bearer wrong' } });
    expect(r.status).toBe(403);
  });

  test('refused (403) when it comes in the URL path, the query, or a body parameter', async () => {
    const inPath = await s.get(`/api/v1/stations/${ADMIN}/stats`, { headers: bearer });
    expect(inPath.status).toBe(403);
    expect(inPath.body).toEqual(DENIED);

    const inQuery = await s.get(`${s.station('/stats')}?token=${ADMIN}`);
    expect(inQuery.status).toBe(403);
    const inQueryWithHeader = await s.get(`/api/v1/stations/${activeId}/stats?token=${ADMIN}`, { headers: bearer });
    expect(inQueryWithHeader.status).toBe(403);
    const onPublicEndpoint = await s.get(`/api/v1/species/1?token=${encodeURIComponent(ADMIN)}`);
    expect(onPublicEndpoint.status).toBe(403);

    const inJson = await s.post(s.station('/detections'), { json: { ...detectionBody(), token: ADMIN } });
    expect(inJson.status).toBe(403);
    expect(inJson.body).toEqual(DENIED);
    const inForm = await s.post(s.station('/config'), { form: { token: ADMIN, name: 'x' } });
    expect(inForm.status).toBe(403);
    const inLookup = await s.post('/api/v1/species/lookup', { json: { species: ['Turdus merula_Eurasian Blackbird'], token: ADMIN } });
    expect(inLookup.status).toBe(403);

    // nothing was stored or changed by the refused requests
    expect(s.emulator.store.stations.byToken(TOKEN)!.name).toBe('Garden');
  });

  test('refused (403) in a GraphQL request too, in the GraphQL error shape', async () => {
    const query = '{ stations { totalCount } }';
    const inBody = await s.post('/graphql', { json: { query, variables: { token: ADMIN } } });
    expect(inBody.status).toBe(403);
    expect(inBody.body).toEqual({ errors: [{ message: 'Access denied' }] });
    const inQuery = await s.get(`/graphql?query=${encodeURIComponent(query)}&token=${encodeURIComponent(ADMIN)}`);
    expect(inQuery.status).toBe(403);
    expect(inQuery.body).toEqual({ errors: [{ message: 'Access denied' }] });
    // Without the token the same request is answered.
    expect((await s.post('/graphql', { json: { query } })).status).toBe(200);
  });
});
