import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../../test/helpers/paths.js';
import { makeFlac } from './flac-fixture.js';
import { detectionBody, startService, type TestService } from './helpers.js';

/**
 * The leniencies of the input layer (docs/EMULATOR.md, "Leniencies"): what real
 * clients send and the real service accepts, and where it stays strict.
 */

let s: TestService;
/** A 15 s soundscape of the Berlin station, starting 2025-06-01T05:30:00+02:00. */
let soundscapeId: number;

beforeAll(async () => {
  s = await startService();
  const upload = await s.post(s.station(`/soundscapes?timestamp=${encodeURIComponent('2025-06-01T05:30:00.000+02:00')}`), {
    body: makeFlac({ sampleRate: 48_000, samples: 48_000 * 15 }),
    headers: { 'content-type': 'audio/flac' },
  });
  expect(upload.status).toBe(201);
  soundscapeId = upload.body.soundscape.id;
});
afterAll(async () => {
  await s.stop();
});

const post = (body: Record<string, unknown>) => s.post(s.station('/detections'), { json: body });

describe('lenient where the real service is', () => {
  test("a widely used uploader's detection: ISO start/end times and numeric strings", async () => {
    const r = await post(
      detectionBody({
        soundscapeId: String(soundscapeId),
        confidence: '0.83',
        lat: '52.5',
        lon: '13.4',
        soundscapeStartTime: '2025-06-01T05:30:06.000+02:00',
        soundscapeEndTime: '2025-06-01T03:30:09.500Z',
      }),
    );
    expect(r.status, r.text).toBe(201);
    expect(r.body.detection).toMatchObject({ confidence: 0.83, lat: 52.5, lon: 13.4 });
    expect(r.body.detection.soundscape).toMatchObject({ id: soundscapeId, startTime: 6, endTime: 9.5 });
  });

  test('ISO times with a +HHMM offset, or no offset (the station zone), and the very start and end', async () => {
    const r = await post(
      detectionBody({ soundscapeId, soundscapeStartTime: '2025-06-01T05:30:00+0200', soundscapeEndTime: '2025-06-01 05:30:15' }),
    );
    expect(r.status, r.text).toBe(201);
    expect(r.body.detection.soundscape).toMatchObject({ startTime: 0, endTime: 15 });
  });

  test('ISO times outside the soundscape are 422, naming the field', async () => {
    const before = await post(detectionBody({ soundscapeId, soundscapeStartTime: '2025-06-01T05:29:59.000+02:00' }));
    expect(before.status).toBe(422);
    expect(before.body.errors).toEqual({ soundscapeStartTime: ['is invalid'] });
    const after = await post(detectionBody({ soundscapeId, soundscapeStartTime: '2025-06-01T05:30:15.600+02:00' }));
    expect(after.status).toBe(422);
    expect(after.body.errors).toEqual({ soundscapeStartTime: ['is invalid'] });
    const endBefore = await post(detectionBody({ soundscapeId, soundscapeEndTime: '2025-06-01T05:29:59.000+02:00' }));
    expect(endBefore.body.errors).toEqual({ soundscapeEndTime: ['is invalid'] });
    const garbage = await post(detectionBody({ soundscapeId, soundscapeStartTime: '2025-13-45T99:00:00Z' }));
    expect(garbage.body.errors).toEqual({ soundscapeStartTime: ['is invalid'] });
  });

  test("a 3 s detection on a 0.5 s soundscape (a public uploader's connection test): the end may run past the recording", async () => {
    const at = '2025-06-02T06:00:00.000+02:00';
    const upload = await s.post(s.station(`/soundscapes?timestamp=${encodeURIComponent(at)}`), {
      body: makeFlac({ sampleRate: 48_000, samples: 24_000 }),
      headers: { 'content-type': 'audio/flac' },
    });
    expect(upload.status).toBe(201);
    const short = upload.body.soundscape.id;
    const r = await post(
      detectionBody({ timestamp: at, soundscapeId: short, soundscapeStartTime: at, soundscapeEndTime: '2025-06-02T06:00:03.000+02:00' }),
    );
    expect(r.status, r.text).toBe(201);
    expect(r.body.detection.soundscape).toMatchObject({ id: short, startTime: 0, endTime: 3 });
  });

  test('timestamp offsets +HH:MM, +HHMM, Z, and a + that arrived as a space', async () => {
    for (const timestamp of ['2025-06-01T05:30:00.000+02:00', '2025-06-01T05:30:00.000+0200', '2025-06-01T03:30:00.000Z', '2025-06-01T05:30:00.000 0200']) {
      const r = await post(detectionBody({ timestamp }));
      expect(r.status, timestamp).toBe(201);
      expect(r.body.detection.timestamp).toBe('2025-06-01T05:30:00.000+02:00');
    }
  });
});

describe('the leniency table of docs/EMULATOR.md', () => {
  test('every field it lists as taking a numeric string does, and refuses a word naming the field', async () => {
    const doc = readFileSync(path.join(REPO_ROOT, 'docs/EMULATOR.md'), 'utf8');
    const section = doc.slice(doc.indexOf('#### Leniencies'));
    const row = section.split('\n').find((l) => l.startsWith('| a number as a numeric string')) ?? '';
    const fields = [...(row.split(' | ')[0] ?? '').matchAll(/`([A-Za-z_]+)`/g)].map((m) => m[1]);
    expect(fields).toEqual(['soundscapeId', 'confidence', 'lat', 'lon', 'soundscapeStartTime', 'soundscapeEndTime', 'behavior_confidence']);
    const numeric: Record<string, string> = { soundscapeId: String(soundscapeId), soundscapeStartTime: '1.5', soundscapeEndTime: '4.5', lat: '52', lon: '13' };
    for (const field of fields) {
      const ok = await post(detectionBody({ soundscapeId, [field]: numeric[field] ?? '0.5' }));
      expect(ok.status, `${field}: ${ok.text}`).toBe(201);
      const word = await post(detectionBody({ soundscapeId, [field]: 'half' }));
      expect(word.status, field).toBe(422);
      expect(word.body.errors, field).toEqual({ [field]: ['is invalid'] });
    }
  });
});

describe('strict where the spec is', () => {
  test('required fields, ranges, unknown species and non-numeric strings are 422 naming the field', async () => {
    const blank = await post({ timestamp: '', commonName: 'Eurasian Blackbird' });
    expect(blank.body.errors).toMatchObject({ timestamp: ["can't be blank"], scientificName: ["can't be blank"] });
    const range = await post(detectionBody({ confidence: '1.5', lat: '91', lon: '-181' }));
    expect(range.status).toBe(422);
    expect(range.body.errors).toEqual({ confidence: ['is invalid'], lat: ['is invalid'], lon: ['is invalid'] });
    const words = await post(detectionBody({ confidence: 'high', soundscapeId: 'twelve' }));
    expect(words.body.errors).toEqual({ confidence: ['is invalid'], soundscapeId: ['is invalid'] });
    const unknown = await post(detectionBody({ scientificName: 'Nonexistus fictus' }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ species: ['must exist'] });
    const reversed = await post(detectionBody({ soundscapeId, soundscapeStartTime: '2025-06-01T05:30:09+02:00', soundscapeEndTime: '2025-06-01T05:30:06+02:00' }));
    expect(reversed.body.errors).toEqual({ soundscapeEndTime: ['is invalid'] });
  });
});
