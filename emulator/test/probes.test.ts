import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN, call, detectionBody, expectKeys, startService, STATION_RECORD_KEYS as RECORD_KEYS, TOKEN, type TestService } from './helpers.js';

let s: TestService;
beforeAll(async () => {
  s = await startService({ stations: [{ token: TOKEN, name: 'Garden', timezone: 'Europe/Berlin' }, { token: 'retired', active: false }] });
});
afterAll(async () => {
  await s.stop();
});

describe('connection probes', () => {
  test('HEAD /api/v1 answers 200 without a body', async () => {
    const r = await call(s.emulator.url, 'HEAD', '/api/v1');
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
  });

  test('GET /api/v1 answers 200 with a small JSON body', async () => {
    const r = await s.get('/api/v1');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, version: 'v1' });
    const slash = await s.get('/api/v1/');
    expect(slash.status).toBe(200);
  });

  test('GET /api/v1/stations/{token} answers the station record of the config update', async () => {
    await s.post(s.station('/detections'), { json: detectionBody() });
    const r = await s.get(s.station(''));
    expect(r.status).toBe(200);
    expectKeys(r.body, ['success', 'station']);
    expectKeys(r.body.station, RECORD_KEYS);
    const config = await s.post(s.station('/config'), { json: {} });
    expect(r.body.station).toEqual(config.body.station);
    expect(r.body.station).toMatchObject({ name: 'Garden', timezone: 'Europe/Berlin', latestDetectionAt: '2025-06-01T05:30:00.000+02:00' });
    expect((await call(s.emulator.url, 'HEAD', s.station(''))).status).toBe(200);
  });

  test('an unknown or inactive token gets 403 Access denied', async () => {
    for (const token of ['no-such-token', 'retired']) {
      const r = await s.get(s.station('', token));
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ success: false, message: 'Access denied' });
    }
  });

  test('with the admin header, the numeric id and inactive stations answer; the admin token in the path is refused', async () => {
    const retired = s.emulator.store.stations.byToken('retired')!;
    const r = await s.get(s.station('', String(retired.id)), { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(r.status).toBe(200);
    expect(r.body.station.id).toBe(retired.id);
    const leaked = await s.get(s.station('', ADMIN), { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(leaked.status).toBe(403);
  });
});
