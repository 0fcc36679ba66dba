import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { detectionBody, expectKeys, startService, STATION_RECORD_KEYS as RECORD_KEYS, TOKEN, type TestService } from './helpers.js';

let s: TestService;
beforeEach(async () => {
  s = await startService({ stations: [{ token: TOKEN, name: 'Garden', timezone: 'America/New_York' }] });
});
afterEach(async () => {
  await s.stop();
});

describe('POST /stations/{token}/config', () => {
  test('an empty update returns the record with the defaults', async () => {
    const r = await s.post(s.station('/config'), { json: {} });
    expect(r.status).toBe(200);
    expectKeys(r.body, ['success', 'station']);
    expectKeys(r.body.station, RECORD_KEYS);
    expect(r.body.station).toEqual({
      id: s.emulator.store.stations.byToken(TOKEN)!.id,
      name: 'Garden',
      type: 'analyzerpi',
      timezone: 'America/New_York',
      latestDetectionAt: null,
      latestValidDetectionAt: null,
      locationPrivacy: false,
      minConfidence: 0.7,
      minProbability: 0,
      minScore: 0,
      minHumanConfidence: 0.04,
    });
  });

  test('JSON update within the ranges, kept for later', async () => {
    const change = { name: 'Orchard', locationPrivacy: true, minConfidence: 0.35, minProbability: 1, minScore: 10, minHumanConfidence: 0.25 };
    const r = await s.post(s.station('/config'), { json: change });
    expect(r.status).toBe(200);
    expect(r.body.station).toMatchObject(change);
    const again = await s.post(s.station('/config'), { json: {} });
    expect(again.body.station).toMatchObject(change);
  });

  test('form parameters (strings) are read as numbers and booleans', async () => {
    const r = await s.post(s.station('/config'), { form: { locationPrivacy: 'true', minConfidence: '0.5', minScore: '2.5' } });
    expect(r.status).toBe(200);
    expect(r.body.station).toMatchObject({ locationPrivacy: true, minConfidence: 0.5, minScore: 2.5 });
  });

  test('out of range or wrong type: 422 {success: false}, nothing changed', async () => {
    const bad = [
      { minConfidence: 0.34 },
      { minConfidence: 1.01 },
      { minProbability: -0.1 },
      { minScore: 10.5 },
      { minHumanConfidence: 0.005 },
      { minHumanConfidence: 0.3 },
      { minConfidence: 'high' },
      { minScore: true },
      { locationPrivacy: 'sometimes' },
      { name: 42 },
      { name: '' },
      { name: 'Valid', minConfidence: 2 },
    ];
    for (const body of bad) {
      const r = await s.post(s.station('/config'), { json: body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body).toEqual({ success: false });
    }
    expect(s.emulator.store.stations.byToken(TOKEN)).toMatchObject({ name: 'Garden', minConfidence: 0.7 });
  });

  test('latestDetectionAt and latestValidDetectionAt (meeting the minimums) in the station zone', async () => {
    await s.post(s.station('/detections'), { json: detectionBody({ timestamp: '2025-06-01T12:00:00Z', confidence: 0.9 }) });
    await s.post(s.station('/detections'), { json: detectionBody({ timestamp: '2025-06-02T12:00:00Z', confidence: 0.2 }) });
    const r = await s.post(s.station('/config'), { json: {} });
    expect(r.body.station.latestDetectionAt).toBe('2025-06-02T08:00:00.000-04:00');
    expect(r.body.station.latestValidDetectionAt).toBe('2025-06-01T08:00:00.000-04:00');
  });
});
