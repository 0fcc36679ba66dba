import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SpeciesListResponse, StationSpeciesSummary } from '../../src/wire/types.js';
import { detectionBody, expectKeys, SPECIES_REF_KEYS, startService, TOKEN, type TestService } from './helpers.js';

const NOW = Date.parse('2025-06-10T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW - h * 3_600_000).toISOString();

const BLACKBIRD = { scientificName: 'Turdus merula', commonName: 'Eurasian Blackbird' };
const TIT = { scientificName: 'Parus major', commonName: 'Great Tit' };
const ROBIN = { scientificName: 'Erithacus rubecula', commonName: 'European Robin' };
const BAT = { scientificName: 'Pipistrellus pipistrellus', commonName: 'Common Pipistrelle' };

let s: TestService;
beforeAll(async () => {
  s = await startService({ now: () => NOW, stations: [{ token: TOKEN, name: 'Garden', timezone: 'Europe/Berlin' }] });
  const rows: [Record<string, string>, number, number][] = [
    // species, hours ago, confidence
    [BLACKBIRD, 1, 0.95],
    [BLACKBIRD, 2, 0.4],
    [BLACKBIRD, 3, 0.2],
    [TIT, 5, 0.8],
    [BAT, 6, 0.9],
    [TIT, 30, 0.7], // this week
    [ROBIN, 24 * 10, 0.9], // this month
    [ROBIN, 24 * 40, 0.9], // older than a month
  ];
  for (const [species, ago, confidence] of rows) {
    const r = await s.post(s.station('/detections'), { json: detectionBody({ ...species, timestamp: hoursAgo(ago), confidence }) });
    expect(r.status).toBe(201);
  }
});
afterAll(async () => {
  await s.stop();
});

describe('GET /stations/{token}/stats', () => {
  test('period: default day, week, month, all', async () => {
    const day = await s.get(s.station('/stats'));
    expect(day.status).toBe(200);
    expect(day.body).toEqual({ success: true, detections: 5, species: 3 });
    expect((await s.get(s.station('/stats?period=day'))).body).toEqual(day.body);
    expect((await s.get(s.station('/stats?period=week'))).body).toEqual({ success: true, detections: 6, species: 3 });
    expect((await s.get(s.station('/stats?period=month'))).body).toEqual({ success: true, detections: 7, species: 4 });
    expect((await s.get(s.station('/stats?period=all'))).body).toEqual({ success: true, detections: 8, species: 4 });
    const bad = await s.get(s.station('/stats?period=year'));
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ success: false, errors: { period: ['is not included in the list'] } });
  });

  test('since overrides period; mode and classification filter', async () => {
    expect((await s.get(s.station(`/stats?period=all&since=${hoursAgo(2.5)}`))).body).toEqual({ success: true, detections: 2, species: 1 });
    expect((await s.get(s.station('/stats?classification=bat'))).body).toEqual({ success: true, detections: 1, species: 1 });
    expect((await s.get(s.station('/stats?classification=avian,bat&period=all'))).body).toMatchObject({ detections: 8 });
    expect((await s.get(s.station('/stats?mode=live&period=all'))).body).toEqual({ success: true, detections: 0, species: 0 });
    expect((await s.get(s.station('/stats?mode=analyzerpi&period=all'))).body).toMatchObject({ detections: 8 });
  });
});

describe('GET /stations/{token}/species', () => {
  const list = async (query = '') => {
    const r = await s.get<SpeciesListResponse>(s.station(`/species${query}`));
    expect(r.status).toBe(200);
    expectKeys(r.body, ['success', 'species']);
    return r.body.species;
  };
  const names = (items: StationSpeciesSummary[]) => items.map((i) => i.scientificName);

  test('default: last day, by detection count, descending; item shape and certainty counts', async () => {
    const items = await list();
    expect(names(items)).toEqual(['Turdus merula', 'Parus major', 'Pipistrellus pipistrellus']);
    for (const item of items) {
      expectKeys(item, [...SPECIES_REF_KEYS, 'detections', 'latestDetectionAt']);
      expectKeys(item.detections, ['total', 'almostCertain', 'veryLikely', 'uncertain', 'unlikely']);
    }
    const blackbird = items[0];
    expect(blackbird.detections.total).toBe(3);
    expect(blackbird.latestDetectionAt).toBe('2025-06-10T13:00:00.000+02:00');
    // the counts by certainty agree with the detections themselves
    const detections = (await s.get(s.station(`/detections?speciesId=${blackbird.id}`))).body.detections;
    const tally = { almostCertain: 0, veryLikely: 0, uncertain: 0, unlikely: 0 };
    const key = { almost_certain: 'almostCertain', very_likely: 'veryLikely', uncertain: 'uncertain', unlikely: 'unlikely' } as const;
    for (const d of detections) tally[key[d.certainty as keyof typeof key]]++;
    expect(blackbird.detections).toEqual({ total: 3, ...tally });
  });

  test('sort by name defaults to ascending; order reverses', async () => {
    expect(names(await list('?sort=common_name'))).toEqual(['Pipistrellus pipistrellus', 'Turdus merula', 'Parus major']);
    expect(names(await list('?sort=scientific_name'))).toEqual(['Parus major', 'Pipistrellus pipistrellus', 'Turdus merula']);
    expect(names(await list('?sort=scientific_name&order=desc'))).toEqual(['Turdus merula', 'Pipistrellus pipistrellus', 'Parus major']);
    // equal counts: the species detected last comes first, in either direction
    expect(names(await list('?sort=top&order=asc'))).toEqual(['Parus major', 'Pipistrellus pipistrellus', 'Turdus merula']);
  });

  test('limit and page', async () => {
    expect(names(await list('?limit=2'))).toEqual(['Turdus merula', 'Parus major']);
    expect(names(await list('?limit=2&page=2'))).toEqual(['Pipistrellus pipistrellus']);
    expect(await list('?limit=2&page=3')).toEqual([]);
    expect(await list('?limit=1000')).toHaveLength(3);
  });

  test('from/to/since override period; speciesId; query; classification', async () => {
    expect(names(await list('?period=all'))).toHaveLength(4);
    expect(names(await list(`?from=${hoursAgo(24 * 11)}`))).toContain('Erithacus rubecula');
    expect(names(await list(`?since=${hoursAgo(24 * 11)}&to=${hoursAgo(24 * 2)}`))).toEqual(['Erithacus rubecula']);
    expect(names(await list(`?to=${hoursAgo(24 * 30)}`))).toEqual(['Erithacus rubecula']);
    const titId = s.emulator.store.species.byScientificName('Parus major')!.id;
    expect(names(await list(`?speciesId=${titId}&query=blackbird`))).toEqual(['Parus major']);
    expect(names(await list('?query=BLACKBIRD&locale=de'))).toEqual(['Turdus merula']);
    expect(names(await list('?classification=bat'))).toEqual(['Pipistrellus pipistrellus']);
  });
});
