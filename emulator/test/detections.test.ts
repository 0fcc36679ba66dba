import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { DetectionRecord } from '../src/index.js';
import {
  ADMIN,
  DETECTION_KEYS,
  detectionBody,
  expectKeys,
  OTHER_TOKEN,
  SPECIES_REF_KEYS,
  startService,
  TOKEN,
  WIRE_TIMESTAMP,
  type TestService,
} from './helpers.js';

let s: TestService;
beforeEach(async () => {
  s = await startService({
    stations: [
      { token: TOKEN, name: 'Garden', lat: 52.52, lon: 13.405, timezone: 'Europe/Berlin' },
      { token: OTHER_TOKEN, name: 'Other' },
      { token: 'bat-token', name: 'Bat unit', edition: 'bat' },
      { token: 'beta-bat-token', name: 'Beta bat unit', edition: 'standard_bat' },
    ],
  });
});
afterEach(async () => {
  await s.stop();
});

async function post(body: Record<string, unknown>, token = TOKEN) {
  return s.post(s.station('/detections', token), { json: body });
}

describe('POST /stations/{token}/detections', () => {
  test('creates a detection: 201, full shape, station offset, ids above 2^31', async () => {
    const r = await post(detectionBody({ timestamp: '2025-06-01T03:30:00Z' }));
    expect(r.status).toBe(201);
    expectKeys(r.body, ['success', 'detection']);
    expect(r.body.success).toBe(true);
    const d = r.body.detection;
    expectKeys(d, DETECTION_KEYS);
    expectKeys(d.species, SPECIES_REF_KEYS);
    expect(d.id).toBeGreaterThan(2 ** 31);
    expect(d.stationId).toBeGreaterThan(2 ** 31);
    // Europe/Berlin in June is +02:00
    expect(d.timestamp).toBe('2025-06-01T05:30:00.000+02:00');
    expect(d.species).toMatchObject({ commonName: 'Eurasian Blackbird', scientificName: 'Turdus merula', classification: 'avian' });
    expect(d.species.color).toMatch(/^#[0-9a-f]{6}$/);
    expect(d.species.imageUrl.startsWith(`${s.emulator.url}/media/`)).toBe(true);
    expect(d.lat).toBe(52.52);
    expect(d.lon).toBe(13.405);
    expect(d.confidence).toBe(0.91);
    expect(d.probability).toBeGreaterThanOrEqual(0);
    expect(d.probability).toBeLessThanOrEqual(1);
    expect(d.score).toBeGreaterThanOrEqual(0);
    expect(d.score).toBeLessThanOrEqual(10);
    expect(['almost_certain', 'very_likely', 'uncertain', 'unlikely']).toContain(d.certainty);
    expect(d.algorithm).toBe('2.4');
    expect(d.metadata).toBeNull();
    expect(d.soundscape).toBeNull();
  });

  test('UTC station renders +00:00', async () => {
    const r = await post(detectionBody({ timestamp: '2025-06-01T05:30:00.123+02:00' }), OTHER_TOKEN);
    expect(r.body.detection.timestamp).toBe('2025-06-01T03:30:00.123+00:00');
    expect(r.body.detection.timestamp).toMatch(WIRE_TIMESTAMP);
  });

  test('accepts +HHMM offsets, numeric strings, an algorithm, and ignores unknown fields', async () => {
    const r = await post(
      detectionBody({
        timestamp: '2025-06-01T05:30:00.000+0200',
        confidence: '0.75',
        lat: '48.1',
        lon: '11.5',
        algorithm: '2p4',
        somethingElse: 'ignored',
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.detection).toMatchObject({ timestamp: '2025-06-01T05:30:00.000+02:00', confidence: 0.75, lat: 48.1, lon: 11.5, algorithm: '2p4' });
    expect(r.body.detection).not.toHaveProperty('somethingElse');
  });

  test('accepts form parameters', async () => {
    const r = await s.post(s.station('/detections'), {
      form: { timestamp: '2025-06-01T05:30:00+02:00', commonName: 'Great Tit', scientificName: 'Parus major', confidence: '0.5' },
    });
    expect(r.status).toBe(201);
    expect(r.body.detection.species.scientificName).toBe('Parus major');
    expect(r.body.detection.confidence).toBe(0.5);
  });

  test('resolves the species by scientific name, case-insensitively', async () => {
    const r = await post(detectionBody({ scientificName: 'turdus MERULA', commonName: 'Amsel' }));
    expect(r.status).toBe(201);
    expect(r.body.detection.species.commonName).toBe('Eurasian Blackbird');
  });

  test('422 with errors per field for blank required values', async () => {
    const r = await post({});
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      success: false,
      errors: { timestamp: ["can't be blank"], commonName: ["can't be blank"], scientificName: ["can't be blank"] },
    });
  });

  test('422 "is invalid" for unparsable values', async () => {
    const r = await post(detectionBody({ timestamp: 'yesterday', confidence: 'high', lat: 'north' }));
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ success: false, errors: { timestamp: ['is invalid'], confidence: ['is invalid'], lat: ['is invalid'] } });
  });

  test('unknown species must exist; the common name alone is not enough', async () => {
    const unknown = await post(detectionBody({ scientificName: 'Dodo ineptus', commonName: 'Dodo' }));
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({ success: false, errors: { species: ['must exist'] } });
    const commonOnly = await post(detectionBody({ scientificName: 'Wrongus name', commonName: 'Eurasian Blackbird' }));
    expect(commonOnly.body.errors).toEqual({ species: ['must exist'] });
  });

  test('analyzer noise labels are not species', async () => {
    const r = await post(detectionBody({ scientificName: 'Engine', commonName: 'Engine' }));
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual({ species: ['must exist'] });
  });

  test("soundscapeId must be one of the station's soundscapes", async () => {
    const r = await post(detectionBody({ soundscapeId: 3_100_000_000 }));
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ success: false, errors: { soundscapeId: ['must exist'] } });
  });

  test('publishes each stored detection on the event stream', async () => {
    const seen: DetectionRecord[] = [];
    s.emulator.events.on('detection', (d) => seen.push(d));
    const r = await post(detectionBody());
    await post({});
    expect(seen).toHaveLength(1);
    expect(seen[0].id).toBe(r.body.detection.id);
  });
});

describe('GET /stations/{token}/detections', () => {
  async function seed(times: string[], overrides: Record<string, unknown> = {}): Promise<number[]> {
    const ids: number[] = [];
    for (const timestamp of times) ids.push((await post(detectionBody({ timestamp, ...overrides }))).body.detection.id);
    return ids;
  }

  test('newest first, default limit 100, limit clamps to 100', async () => {
    const ids = await seed(['2025-06-01T05:00:00Z', '2025-06-01T07:00:00Z', '2025-06-01T06:00:00Z']);
    const r = await s.get(s.station('/detections'));
    expect(r.status).toBe(200);
    expectKeys(r.body, ['success', 'detections']);
    expect(r.body.detections.map((d) => d.id)).toEqual([ids[1], ids[2], ids[0]]);
    for (const d of r.body.detections) expectKeys(d, DETECTION_KEYS);

    const many = Array.from({ length: 105 }, (_, i) => new Date(Date.UTC(2025, 5, 2, 0, i)).toISOString());
    const rows = many.map((timestamp) => ({ timestamp }));
    for (const row of rows) await post(detectionBody(row));
    expect((await s.get(s.station('/detections'))).body.detections).toHaveLength(100);
    expect((await s.get(s.station('/detections?limit=500'))).body.detections).toHaveLength(100);
    expect((await s.get(s.station('/detections?limit=7'))).body.detections).toHaveLength(7);
  });

  test('cursor pages by the id of the last item, in listing order', async () => {
    // equal timestamps: the id breaks the tie
    const ids = await seed(['2025-06-01T05:00:00Z', '2025-06-01T05:00:00Z', '2025-06-01T04:00:00Z', '2025-06-01T08:00:00Z', '2025-06-01T05:00:00Z']);
    const seen: number[] = [];
    let cursor: number | undefined;
    for (;;) {
      const r = await s.get(s.station(`/detections?limit=2${cursor ? `&cursor=${cursor}` : ''}`));
      const page = r.body.detections.map((d) => d.id);
      if (page.length === 0) break;
      seen.push(...page);
      cursor = page.at(-1);
    }
    expect(seen).toEqual([ids[3], ids[4], ids[1], ids[0], ids[2]]);
  });

  test('from/to are inclusive; a date alone as `to` covers the day', async () => {
    const ids = await seed(['2025-06-01T04:00:00Z', '2025-06-01T05:00:00Z', '2025-06-01T06:00:00Z', '2025-06-02T21:00:00Z']);
    const r = await s.get(s.station('/detections?from=2025-06-01T05:00:00Z&to=2025-06-01T06:00:00Z'));
    expect(r.body.detections.map((d) => d.id)).toEqual([ids[2], ids[1]]);
    // the station is on Europe/Berlin: 2025-06-02 ends at 21:59:59.999Z
    const day = await s.get(s.station('/detections?from=2025-06-02&to=2025-06-02'));
    expect(day.body.detections.map((d) => d.id)).toEqual([ids[3]]);
    const bad = await s.get(s.station('/detections?from=soon'));
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ success: false, errors: { from: ['is invalid'] } });
  });

  test('speciesId, query (ignored with speciesId), classification list', async () => {
    await post(detectionBody());
    await post(detectionBody({ scientificName: 'Parus major', commonName: 'Great Tit' }));
    await post(detectionBody({ scientificName: 'Pipistrellus pipistrellus', commonName: 'Common Pipistrelle' }));
    const tit = (await s.get(s.station('/detections?query=tit'))).body.detections;
    expect(tit.map((d) => d.species.scientificName)).toEqual(['Parus major']);
    const blackbirdId = (await s.get(s.station('/detections?query=merula'))).body.detections[0].species.id;
    const both = await s.get(s.station(`/detections?speciesId=${blackbirdId}&query=tit`));
    expect(both.body.detections.map((d) => d.species.scientificName)).toEqual(['Turdus merula']);
    const bats = await s.get(s.station('/detections?classification=bat'));
    expect(bats.body.detections.map((d) => d.species.classification)).toEqual(['bat']);
    const list = await s.get(s.station('/detections?classification=bat,avian'));
    expect(list.body.detections).toHaveLength(3);
    const repeated = await s.get(s.station('/detections?classification=bat&classification=avian'));
    expect(repeated.body.detections).toHaveLength(3);
    expect((await s.get(s.station('/detections?classification=fungus'))).status).toBe(422);
  });

  test('mode filter: analyzerpi stations record in analyzerpi mode', async () => {
    await post(detectionBody());
    expect((await s.get(s.station('/detections?mode=analyzerpi'))).body.detections).toHaveLength(1);
    const live = await s.get(s.station('/detections?mode=live'));
    expect(live.body.detections).toEqual([]);
  });

  test('nothing matches: empty list plus the unfiltered fallback', async () => {
    const ids = await seed(['2025-06-01T04:00:00Z', '2025-06-01T05:00:00Z']);
    const r = await s.get(s.station('/detections?query=nightingale'));
    expectKeys(r.body, ['success', 'detections', 'unfiltered_detections']);
    expect(r.body.detections).toEqual([]);
    expect(r.body.unfiltered_detections!.map((d) => d.id)).toEqual([ids[1], ids[0]]);
    for (const d of r.body.unfiltered_detections!) expectKeys(d, DETECTION_KEYS);
  });

  test('behavior filter; bat_approach also matches bat_chase', async () => {
    const bat = { scientificName: 'Nyctalus noctula', commonName: 'Common Noctule' };
    await post(detectionBody({ ...bat, behavior_key: 'bat_chase', behavior_confidence: 0.8 }), 'bat-token');
    await post(detectionBody({ ...bat, behavior_key: 'bat_approach', behavior_confidence: 0.6 }), 'bat-token');
    await post(detectionBody({ ...bat, behavior_key: 'bat_pass' }), 'bat-token');
    await post(detectionBody({ ...bat }), 'bat-token');
    const chase = await s.get(s.station('/detections?behavior=bat_chase', 'bat-token'));
    expect(chase.body.detections.map((d) => d.behavior_key)).toEqual(['bat_chase']);
    const approach = await s.get(s.station('/detections?behavior=bat_approach', 'bat-token'));
    expect(approach.body.detections.map((d) => d.behavior_key).sort()).toEqual(['bat_approach', 'bat_chase']);
    const two = await s.get(s.station('/detections?behavior=bat_pass,bat_chase', 'bat-token'));
    expect(two.body.detections).toHaveLength(2);
    const first = chase.body.detections[0];
    expectKeys(first, [...DETECTION_KEYS, 'behavior', 'behavior_key', 'behavior_confidence']);
    expect(first).toMatchObject({ behavior: 'Chase', behavior_confidence: 0.8 });
    // no behavior: the fields are omitted
    const all = await s.get(s.station('/detections', 'bat-token'));
    expect(all.body.detections.filter((d) => !('behavior_key' in d))).toHaveLength(1);
    // behavior on a bird is refused
    const bird = await post(detectionBody({ behavior_key: 'bat_pass' }));
    expect(bird.body.errors).toEqual({ behavior_key: ['is invalid'] });
  });

  test('shortlist: only for bat-edition stations, only when asked; never for standard_bat', async () => {
    const body = detectionBody({
      scientificName: 'Pipistrellus pipistrellus',
      commonName: 'Common Pipistrelle',
      shortlist: [
        { scientificName: 'Myotis daubentonii', weight: 0.2 },
        { scientificName: 'Nyctalus noctula', weight: 0.7 },
      ],
    });
    await post(body, 'bat-token');
    await post(body, 'beta-bat-token');
    await post(body, OTHER_TOKEN);

    const plain = await s.get(s.station('/detections', 'bat-token'));
    expect(plain.body.detections[0]).not.toHaveProperty('shortlist');
    const asked = await s.get(s.station('/detections?shortlist=true', 'bat-token'));
    const shortlist = asked.body.detections[0].shortlist!;
    expect(shortlist.map((e) => [e.scientificName, e.weight])).toEqual([
      ['Nyctalus noctula', 0.7],
      ['Myotis daubentonii', 0.2],
    ]);
    for (const entry of shortlist) expectKeys(entry, ['speciesId', 'commonName', 'scientificName', 'weight']);
    const beta = await s.get(s.station('/detections?shortlist=true', 'beta-bat-token'));
    expect(beta.body.detections[0]).not.toHaveProperty('shortlist');
    const standard = await s.get(s.station('/detections?shortlist=true', OTHER_TOKEN));
    expect(standard.body.detections[0]).not.toHaveProperty('shortlist');
    // detection info serves it where available
    const info = await s.get(s.station(`/detections/${asked.body.detections[0].id}`, 'bat-token'));
    expect(info.body.detection.shortlist).toHaveLength(2);
  });
});

describe('detection info', () => {
  test('station scoped: 200 for its own detection, 404 for another station', async () => {
    const id = (await post(detectionBody())).body.detection.id;
    const r = await s.get(s.station(`/detections/${id}`));
    expect(r.status).toBe(200);
    expectKeys(r.body, ['success', 'detection']);
    expectKeys(r.body.detection, DETECTION_KEYS);
    const other = await s.get(s.station(`/detections/${id}`, OTHER_TOKEN));
    expect(other.status).toBe(404);
    expect(other.body.success).toBe(false);
  });

  test('global: no authentication; 404 {success, message} for unknown ids and before May 2025', async () => {
    const recent = (await post(detectionBody({ timestamp: '2025-05-01T00:00:00Z' }))).body.detection;
    const old = (await post(detectionBody({ timestamp: '2025-04-30T23:59:59.999Z' }))).body.detection;
    const r = await s.get(`/api/v1/detections/${recent.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, detection: recent });

    const before = await s.get(`/api/v1/detections/${old.id}`);
    expect(before.status).toBe(404);
    expectKeys(before.body, ['success', 'message']);
    expect(before.body.success).toBe(false);
    // still served by the station endpoint
    expect((await s.get(s.station(`/detections/${old.id}`))).status).toBe(200);

    const unknown = await s.get('/api/v1/detections/3999999999');
    expect(unknown.status).toBe(404);
    expectKeys(unknown.body, ['success', 'message']);
    expect((await s.get('/api/v1/detections/abc')).status).toBe(404);
  });

  test('global: an inactive station\'s detection is not served (issue 35)', async () => {
    const d = (await post(detectionBody({ timestamp: '2025-06-01T00:00:00Z' }))).body.detection;
    expect((await s.get(`/api/v1/detections/${d.id}`)).status).toBe(200);
    s.emulator.store.db.prepare('UPDATE stations SET active = 0 WHERE id = ?').run(d.stationId);
    const r = await s.get(`/api/v1/detections/${d.id}`);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ success: false, message: 'Detection not found' });
  });

  test('the admin may read any station by numeric id', async () => {
    const d = (await post(detectionBody())).body.detection;
    const r = await s.get(`/api/v1/stations/${d.stationId}/detections/${d.id}`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(r.status).toBe(200);
    expect(r.body.detection.id).toBe(d.id);
  });
});
