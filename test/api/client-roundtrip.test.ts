import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createServiceClient, HttpStatusError, OutcomeUnknownError, type ServiceClient } from '../../src/api/index.js';
import { makeFlac } from '../../emulator/test/flac-fixture.js';
import { ADMIN, startService, TOKEN, type TestService } from '../../emulator/test/helpers.js';

/** A few round trips through the agent's own typed client (the rest is in test/api). */
let s: TestService;
let client: ServiceClient;
beforeAll(async () => {
  s = await startService();
  client = createServiceClient({ baseUrl: s.emulator.url, token: TOKEN, timeoutMs: 2_000 });
});
afterAll(async () => {
  await client.close();
  await s.stop();
});

test('upload a FLAC file, post a detection on it, read both back', async () => {
  const file = `${s.dir}/clip.flac`;
  writeFileSync(file, makeFlac({ sampleRate: 48_000, samples: 48_000 * 9 }));
  const soundscape = await client.uploadSoundscape({ file, timestamp: '2025-06-01T05:30:00.000+02:00' });
  expect(soundscape).toMatchObject({ duration: 9, sampleRate: 48_000, mode: 'analyzerpi' });
  const detection = await client.postDetection({
    timestamp: '2025-06-01T05:30:03.000+02:00',
    scientificName: 'Pica pica',
    commonName: 'Eurasian Magpie',
    confidence: 0.912,
    soundscapeId: soundscape.id,
    soundscapeStartTime: 3,
    soundscapeEndTime: 6,
  });
  expect(detection.soundscape).toMatchObject({ id: soundscape.id, startTime: 3, endTime: 6 });
  const withDetections = await client.getSoundscape(soundscape.id, { detections: true });
  expect(withDetections.detections?.map((d) => d.id)).toEqual([detection.id]);
});

test('the client reads the service errors: 422 fields, HTML 5xx, commit-then-drop', async () => {
  const invalid = await client
    .postDetection({ timestamp: 'soon', scientificName: 'Pica pica', commonName: 'Eurasian Magpie' })
    .catch((e: unknown) => e);
  expect(invalid).toBeInstanceOf(HttpStatusError);
  expect((invalid as HttpStatusError).errors).toEqual({ timestamp: ['is invalid'] });

  s.emulator.setFaults('5xx=1,html=1');
  const html = await client.stats().catch((e: unknown) => e);
  expect(html).not.toBeInstanceOf(Error); // GET is not faulted by default
  const post = await client
    .postDetection({ timestamp: '2025-06-01T05:30:00Z', scientificName: 'Pica pica', commonName: 'Eurasian Magpie' })
    .catch((e: unknown) => e);
  expect(post).toBeInstanceOf(HttpStatusError);
  expect((post as HttpStatusError).html).toBe(true);

  s.emulator.setFaults('drop=1');
  const before = (await client.listDetections({ limit: 100 })).detections.length;
  const dropped = await client
    .postDetection({ timestamp: '2025-06-01T05:30:00Z', scientificName: 'Pica pica', commonName: 'Eurasian Magpie' })
    .catch((e: unknown) => e);
  expect(dropped).toBeInstanceOf(OutcomeUnknownError);
  s.emulator.setFaults(null);
  expect((await client.listDetections({ limit: 100 })).detections.length).toBe(before + 1);
});

test('admin mode: numeric station id with the admin token in the header', async () => {
  const stationId = s.emulator.store.stations.byToken(TOKEN)!.id;
  const admin = createServiceClient({ baseUrl: s.emulator.url, adminToken: ADMIN, stationId });
  try {
    const record = await admin.updateConfig({ minScore: 2 });
    expect(record).toMatchObject({ id: stationId, minScore: 2 });
  } finally {
    await admin.close();
  }
});
