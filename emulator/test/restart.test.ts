import { afterEach, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '../src/index.js';
import { tempDir } from '../../test/helpers/paths.js';
import { makeFlac } from './flac-fixture.js';
import { call, detectionBody, TOKEN } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

test('an outage: stop, restart on the same port and db file, all data kept, ids continue', async () => {
  const { dir, cleanup } = tempDir('emulator-restart-');
  cleanups.push(cleanup);
  const options = { db: `${dir}/service.db`, tokens: [TOKEN] };
  let emulator: RunningEmulator = await startEmulator(options);
  cleanups.push(() => emulator.close());
  const path = `/api/v1/stations/${TOKEN}`;

  const upload = await call(emulator.url, 'POST', `${path}/soundscapes?timestamp=2025-06-01T00:00:00Z`, {
    body: makeFlac(),
    headers: { 'content-type': 'audio/flac' },
  });
  const first = await call(emulator.url, 'POST', `${path}/detections`, {
    json: detectionBody({ soundscapeId: upload.body.soundscape.id }),
  });
  const { port, url } = emulator;
  await emulator.close();
  await expect(fetch(`${url}${path}/detections`)).rejects.toThrow();

  emulator = await startEmulator({ ...options, port });
  expect(emulator.url).toBe(url);
  const listed = await call(emulator.url, 'GET', `${path}/detections`);
  const { soundscape, ...rest } = first.body.detection;
  expect(listed.body.detections).toEqual([{ ...rest, soundscape: { ...soundscape, id: undefined } }].map(stripUndefined));
  const audio = await fetch(upload.body.soundscape.url);
  expect(audio.status).toBe(200);

  const second = await call(emulator.url, 'POST', `${path}/detections`, { json: detectionBody() });
  expect(second.body.detection.id).toBe(first.body.detection.id + 1);
  expect(second.body.detection.stationId).toBe(first.body.detection.stationId);
});

function stripUndefined<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
