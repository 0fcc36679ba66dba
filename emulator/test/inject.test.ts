import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildEmulatorApp, type EmulatorApp } from '../src/index.js';
import { ADMIN, detectionBody, DETECTION_KEYS, expectKeys, TOKEN } from './helpers.js';

let app: EmulatorApp;
beforeAll(async () => {
  app = await buildEmulatorApp({ tokens: [TOKEN], adminToken: ADMIN, idOffset: 5_000_000_000, seed: 3 });
});
afterAll(async () => {
  await app.close();
});

test('without a socket: post and read back through inject', async () => {
  const post = await app.inject({ method: 'POST', url: `/api/v1/stations/${TOKEN}/detections`, payload: detectionBody() });
  expect(post.statusCode).toBe(201);
  expect(post.headers['content-type']).toMatch(/^application\/json/);
  const created = post.json();
  expect(created.detection.id).toBe(5_200_000_000);
  expect(created.detection.stationId).toBe(5_000_000_000);

  const list = await app.inject({ method: 'GET', url: `/api/v1/stations/${TOKEN}/detections` });
  expectKeys(list.json().detections[0], DETECTION_KEYS);
});

test('the probability rule is seeded and reproducible', async () => {
  const other = await buildEmulatorApp({ tokens: [TOKEN], seed: 3 });
  try {
    const a = (await app.inject({ method: 'POST', url: `/api/v1/stations/${TOKEN}/detections`, payload: detectionBody() })).json();
    const b = (await other.inject({ method: 'POST', url: `/api/v1/stations/${TOKEN}/detections`, payload: detectionBody() })).json();
    expect(b.detection.probability).toBe(a.detection.probability);
    expect(b.detection.score).toBe(a.detection.score);
  } finally {
    await other.close();
  }
});

test('unknown routes answer JSON with success false', async () => {
  const r = await app.inject({ method: 'GET', url: '/api/v1/nothing' });
  expect(r.statusCode).toBe(404);
  expect(r.json()).toEqual({ success: false, message: 'Not found' });
  const badJson = await app.inject({
    method: 'POST',
    url: `/api/v1/stations/${TOKEN}/detections`,
    headers: { 'content-type': 'application/json' },
    payload: '{"timestamp":',
  });
  expect(badJson.statusCode).toBe(400);
  expect(badJson.json()).toMatchObject({ success: false });
});
