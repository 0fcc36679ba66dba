import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { realFixture } from '../../test/helpers/paths.js';
import { makeFlac, makeWav } from './flac-fixture.js';
import {
  DETECTION_KEYS,
  DETECTION_SOUNDSCAPE_KEYS,
  detectionBody,
  expectKeys,
  OTHER_TOKEN,
  SOUNDSCAPE_KEYS,
  startService,
  TOKEN,
  type TestService,
} from './helpers.js';

let s: TestService;
beforeEach(async () => {
  s = await startService({ uploadLimitBytes: 2 * 1024 * 1024 });
});
afterEach(async () => {
  await s.stop();
});

const FLAC = { 'content-type': 'audio/flac' };

async function upload(body: Buffer, timestamp = '2025-06-01T05:30:00.000+02:00', headers: Record<string, string> = FLAC, token = TOKEN) {
  const query = timestamp === '' ? '' : `?timestamp=${encodeURIComponent(timestamp)}`;
  return s.post(s.station(`/soundscapes${query}`, token), { body, headers });
}

describe('POST /stations/{token}/soundscapes', () => {
  test('stores a FLAC upload: 201 and the soundscape shape', async () => {
    const flac = makeFlac({ sampleRate: 48_000, samples: 48_000 * 15 + 20_000 });
    const r = await upload(flac);
    expect(r.status).toBe(201);
    expectKeys(r.body, ['success', 'soundscape']);
    const sc = r.body.soundscape;
    expectKeys(sc, SOUNDSCAPE_KEYS);
    expect(sc.id).toBeGreaterThan(2 ** 31);
    expect(sc).toMatchObject({
      stationId: s.emulator.store.stations.byToken(TOKEN)!.id,
      duration: 15, // 15.42 s rounds to 15
      filesize: flac.length,
      sampleRate: 48_000,
      timestamp: '2025-06-01T05:30:00.000+02:00',
      mode: 'analyzerpi',
    });
    expect(sc.url.startsWith(`${s.emulator.url}/media/`)).toBe(true);
    // the audio is served at its URL, byte for byte
    const audio = await fetch(sc.url);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/flac');
    expect(Buffer.from(await audio.arrayBuffer()).equals(flac)).toBe(true);
  });

  test('accepts application/octet-stream with Content-Encoding: gzip (the analyzerpi uploader)', async () => {
    const flac = makeFlac({ samples: 16_000 * 6 });
    const r = await upload(gzipSync(flac), '2025-06-01T05:30:00.000+02:00', {
      'content-type': 'application/octet-stream',
      'content-encoding': 'gzip',
    });
    expect(r.status).toBe(201);
    expect(r.body.soundscape).toMatchObject({ duration: 6, filesize: flac.length, sampleRate: 16_000 });
  });

  test('reads a timestamp whose "+" arrived as a space (sent without URL-encoding)', async () => {
    // fetch leaves "+" as is; the query parser turns it into a space, as for the real uploader
    for (const stamp of ['2025-06-01T05:30:00.000+0200', '2025-06-01T05:30:00+02:00']) {
      const r = await s.post(s.station(`/soundscapes?timestamp=${stamp}`), { body: makeFlac(), headers: FLAC });
      expect(r.status).toBe(201);
      expect(r.body.soundscape.timestamp).toBe('2025-06-01T05:30:00.000+02:00');
    }
  });

  test('timestamp is required and must parse: 422', async () => {
    const missing = await upload(makeFlac(), '');
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ success: false, errors: { timestamp: ["can't be blank"] } });
    const invalid = await upload(makeFlac(), 'tomorrow');
    expect(invalid.status).toBe(422);
    expect(invalid.body).toEqual({ success: false, errors: { timestamp: ['is invalid'] } });
  });

  test('WAV: 415 with success true and an empty soundscape, nothing stored', async () => {
    for (const wav of [makeWav(), readFileSync(realFixture('birdnet-pi_88985a3a/Pica pica_30s.wav'))]) {
      const r = await upload(wav, '2025-06-01T05:30:00Z', { 'content-type': 'audio/wav' });
      expect(r.status).toBe(415);
      expectKeys(r.body, ['success', 'soundscape', 'message']);
      expect(r.body.success).toBe(true);
      expectKeys(r.body.soundscape, SOUNDSCAPE_KEYS);
      expect(r.body.soundscape).toMatchObject({ id: null, url: null, filesize: null, duration: null });
      expect(r.body.message).toMatch(/WAV.*FLAC/);
    }
    expect((await s.get(s.station('/soundscapes'))).body.soundscapes).toEqual([]);
  });

  test('FLAC whose STREAMINFO total samples is 0: 422', async () => {
    const r = await upload(makeFlac({ totalSamplesInHeader: 0 }));
    expect(r.status).toBe(422);
    expectKeys(r.body, ['success', 'message']);
    expect(r.body.message).toMatch(/total samples/);
  });

  test('anything else: 415 or 422 with a clear message', async () => {
    const text = await upload(Buffer.from('hello, not audio'));
    expect(text.status).toBe(415);
    expect(text.body.message).toMatch(/FLAC/);
    const gzipWithoutHeader = await upload(gzipSync(makeFlac()));
    expect(gzipWithoutHeader.status).toBe(415);
    expect(gzipWithoutHeader.body.message).toMatch(/Content-Encoding/);
    const empty = await upload(Buffer.alloc(0));
    expect(empty.status).toBe(422);
    const truncated = await upload(makeFlac().subarray(0, 20));
    expect(truncated.status).toBe(422);
    expect(truncated.body.message).toMatch(/STREAMINFO/);
    const badGzip = await upload(Buffer.from('not gzip'), undefined, { 'content-type': 'audio/flac', 'content-encoding': 'gzip' });
    expect(badGzip.status).toBe(422);
  });

  test('uploads above the limit: 413', async () => {
    const r = await upload(makeFlac({ sampleRate: 48_000, samples: 48_000 * 30 }));
    expect(r.status).toBe(413);
    expect(r.body.success).toBe(false);
  });
});

describe('listing and info', () => {
  async function seed(): Promise<number[]> {
    const ids: number[] = [];
    for (const t of ['2025-06-01T05:00:00Z', '2025-06-01T07:00:00Z', '2025-06-01T06:00:00Z']) {
      ids.push((await upload(makeFlac(), t)).body.soundscape.id);
    }
    return ids;
  }

  test('newest first, limit, cursor pagination, from/to inclusive', async () => {
    const ids = await seed();
    const all = await s.get(s.station('/soundscapes'));
    expect(all.status).toBe(200);
    expectKeys(all.body, ['success', 'soundscapes']);
    expect(all.body.soundscapes.map((x) => x.id)).toEqual([ids[1], ids[2], ids[0]]);
    for (const sc of all.body.soundscapes) expectKeys(sc, SOUNDSCAPE_KEYS);

    const page1 = await s.get(s.station('/soundscapes?limit=2'));
    expect(page1.body.soundscapes.map((x) => x.id)).toEqual([ids[1], ids[2]]);
    const page2 = await s.get(s.station(`/soundscapes?limit=2&cursor=${ids[2]}`));
    expect(page2.body.soundscapes.map((x) => x.id)).toEqual([ids[0]]);

    const window = await s.get(s.station('/soundscapes?from=2025-06-01T06:00:00Z&to=2025-06-01T07:00:00Z'));
    expect(window.body.soundscapes.map((x) => x.id)).toEqual([ids[1], ids[2]]);
    // another station sees none of them
    expect((await s.get(s.station('/soundscapes', OTHER_TOKEN))).body.soundscapes).toEqual([]);
  });

  test('detections reference soundscapes; detections=true includes them; speciesId filters', async () => {
    const [first, second] = await seed();
    const created = await s.post(s.station('/detections'), {
      json: detectionBody({ soundscapeId: first, soundscapeStartTime: 3, soundscapeEndTime: '6.0' }),
    });
    expect(created.status).toBe(201);
    const ref = created.body.detection.soundscape!;
    // the creation response carries the soundscape id, retrieval responses do not
    expectKeys(ref, [...DETECTION_SOUNDSCAPE_KEYS, 'id']);
    expect(ref).toMatchObject({ id: first, startTime: 3, endTime: 6, mode: 'analyzerpi' });
    const listed = await s.get(s.station('/detections'));
    expectKeys(listed.body.detections[0].soundscape, DETECTION_SOUNDSCAPE_KEYS);
    expect(listed.body.detections[0].soundscape!.url).toBe(ref.url);

    const info = await s.get(s.station(`/soundscapes/${first}?detections=true`));
    expect(info.status).toBe(200);
    expectKeys(info.body.soundscape, [...SOUNDSCAPE_KEYS, 'detections']);
    expect(info.body.soundscape.detections).toHaveLength(1);
    expectKeys(info.body.soundscape.detections![0], DETECTION_KEYS);
    const plain = await s.get(s.station(`/soundscapes/${first}`));
    expectKeys(plain.body.soundscape, SOUNDSCAPE_KEYS);

    const list = await s.get(s.station('/soundscapes?detections=true'));
    const byId = new Map(list.body.soundscapes.map((x) => [x.id, x]));
    expect(byId.get(first)!.detections).toHaveLength(1);
    expect(byId.get(second)!.detections).toEqual([]);

    const speciesId = created.body.detection.species.id;
    const bySpecies = await s.get(s.station(`/soundscapes?speciesId=${speciesId}`));
    expect(bySpecies.body.soundscapes.map((x) => x.id)).toEqual([first]);
  });

  test("info: 404 for an unknown id or another station's soundscape", async () => {
    const [first] = await seed();
    expect((await s.get(s.station(`/soundscapes/${first}`, OTHER_TOKEN))).status).toBe(404);
    const unknown = await s.get(s.station('/soundscapes/3999999999'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.success).toBe(false);
    // nor can another station attach a detection to it
    const attach = await s.post(s.station('/detections', OTHER_TOKEN), { json: detectionBody({ soundscapeId: first }) });
    expect(attach.body.errors).toEqual({ soundscapeId: ['must exist'] });
  });
});
