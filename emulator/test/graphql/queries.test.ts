import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { gid } from './helpers.js';
import { SPECIES, startWorld, type PostedDetection, type World } from './world.js';

/** Detections posted through REST, read back through every query of the spec's table. */

let w: World;
const posted: Record<string, PostedDetection> = {};
let blackbird: number;
let robin: number;
let thrush: number;

beforeAll(async () => {
  w = await startWorld();
  const id = (name: string) => w.emulator.store.species.byScientificName(name)!.id;
  [blackbird, robin, thrush] = [id(SPECIES.blackbird.scientificName), id(SPECIES.robin.scientificName), id(SPECIES.thrush.scientificName)];
  posted.g60 = await w.detect('garden', 60);
  posted.g120 = await w.detect('garden', 120);
  posted.gOld = await w.detect('garden', 25 * 60);
  posted.gRobin = await w.detect('garden', 510, SPECIES.robin);
  posted.r30 = await w.detect('ridge', 30);
  posted.rThrush = await w.detect('ridge', 40, SPECIES.thrush);
  posted.p100 = await w.detect('phone', 100, SPECIES.robin);
  posted.p200 = await w.detect('phone', 200, SPECIES.robin);
  posted.p300 = await w.detect('phone', 300);
});
afterAll(() => w.stop());

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const mean = (xs: number[]) => round3(xs.reduce((a, b) => a + b, 0) / xs.length);

describe('counts', () => {
  test('detections, species, stations, sightings and the station type breakdown of the last 24 hours', async () => {
    const data = await w.data(`{ counts { detections species stations analyzer breakdown { stations { type count } } } }`);
    expect(data.counts).toEqual({
      detections: 8,
      species: 3,
      stations: 3,
      analyzer: 3,
      breakdown: { stations: [{ type: 'analyzerpi', count: 1 }, { type: 'mobile', count: 1 }, { type: 'stream_audio', count: 1 }] },
    });
  });

  test('filtered by species, stations, types, box and period', async () => {
    const data = await w.data(`{
      bySpecies: counts(speciesId: ${robin}) { detections species stations analyzer }
      byType: counts(stationTypes: ["mobile"]) { detections }
      byStation: counts(stationIds: [${w.ids.garden}], period: {count: 2, unit: "day"}) { detections species }
      byBox: counts(sw: {lat: 40, lon: -80}, ne: {lat: 45, lon: -70}) { detections analyzer }
    }`);
    expect(data.bySpecies).toEqual({ detections: 3, species: 1, stations: 2, analyzer: 2 });
    expect(data.byType.detections).toBe(3);
    expect(data.byStation).toEqual({ detections: 4, species: 2 });
    expect(data.byBox).toEqual({ detections: 2, analyzer: 0 });
  });
});

describe('top species', () => {
  test('topSpecies: most detections first, with breakdown and average probability', async () => {
    const data = await w.data(`{ topSpecies { count speciesId averageProbability species { commonName }
      breakdown { almostCertain veryLikely uncertain unlikely } } }`);
    expect(data.topSpecies.map((s: { species: { commonName: string }; count: number }) => [s.species.commonName, s.count])).toEqual([
      ['Eurasian Blackbird', 4],
      ['European Robin', 3],
      ['Song Thrush', 1],
    ]);
    const top = data.topSpecies[0];
    expect(top.speciesId).toBe(gid('Species', blackbird));
    expect(top.averageProbability).toBe(mean([posted.g60, posted.g120, posted.r30, posted.p300].map((p) => p.probability)));
    const b = top.breakdown;
    expect(b.almostCertain + b.veryLikely + b.uncertain + b.unlikely).toBe(4);
  });

  test('topSpecies: limit, offset, station and type filters', async () => {
    const data = await w.data(`{
      second: topSpecies(limit: 1, offset: 1) { speciesId count }
      garden: topSpecies(stationIds: [${w.ids.garden}]) { speciesId count }
      stream: topSpecies(stationTypes: ["stream_audio"], speciesId: ${thrush}) { speciesId count }
    }`);
    expect(data.second).toEqual([{ speciesId: gid('Species', robin), count: 3 }]);
    expect(data.garden).toEqual([{ speciesId: gid('Species', blackbird), count: 2 }, { speciesId: gid('Species', robin), count: 1 }]);
    expect(data.stream).toEqual([{ speciesId: gid('Species', thrush), count: 1 }]);
    expect((await w.gql('{ topSpecies(limit: 0) { count } }')).errors?.[0]?.message).toBe('limit must be 1 or more, got 0');
    // Dashboards ask for 200, 1000, 2000: clamped to 100, not refused.
    const everything = await w.data(`{ topSpecies { speciesId count } }`);
    for (const limit of [200, 1000, 2000]) {
      const big = await w.gql(`{ topSpecies(limit: ${limit}) { speciesId count } topAnalyzerSpecies(limit: ${limit}) { count } }`);
      expect(big.errors).toBeUndefined();
      expect(big.data?.topSpecies).toEqual(everything.topSpecies);
    }
  });

  test('topAnalyzerSpecies counts the sightings (detections of mobile stations)', async () => {
    const data = await w.data(`{ topAnalyzerSpecies { speciesId count } }`);
    expect(data.topAnalyzerSpecies).toEqual([{ speciesId: gid('Species', robin), count: 2 }, { speciesId: gid('Species', blackbird), count: 1 }]);
  });
});

describe('analyzerSightings', () => {
  test('newest first, with limit and offset, and pages', async () => {
    const data = await w.data(`{
      all: analyzerSightings { totalCount nodes { id speciesId score timestamp coords { lat lon } species { commonName } } }
      bounded: analyzerSightings(limit: 2, offset: 1) { totalCount nodes { id } }
      robins: analyzerSightings(speciesId: ${robin}, first: 1) { totalCount nodes { id } pageInfo { hasNextPage endCursor } }
    }`);
    expect(data.all.nodes.map((n: { id: string }) => n.id)).toEqual([posted.p100, posted.p200, posted.p300].map((p) => gid('Sighting', p.id)));
    expect(data.all.nodes[0]).toMatchObject({
      speciesId: gid('Species', robin),
      score: posted.p100.score,
      timestamp: posted.p100.timestamp,
      coords: { lat: 48.1, lon: 11.6 },
      species: { commonName: 'European Robin' },
    });
    expect(data.bounded.totalCount).toBe(2);
    expect(data.bounded.nodes.map((n: { id: string }) => n.id)).toEqual([posted.p200, posted.p300].map((p) => gid('Sighting', p.id)));
    expect(data.robins).toMatchObject({ totalCount: 2, pageInfo: { hasNextPage: true } });
    const next = await w.data(`{ analyzerSightings(speciesId: ${robin}, first: 1, after: "${data.robins.pageInfo.endCursor}") { nodes { id } pageInfo { hasNextPage } } }`);
    expect(next.analyzerSightings).toEqual({ nodes: [{ id: gid('Sighting', posted.p200.id) }], pageInfo: { hasNextPage: false } });
  });
});

describe('binned counts', () => {
  test('dailyDetectionCounts: per UTC day, oldest first, species by count', async () => {
    const data = await w.data(`{ dailyDetectionCounts(period: {count: 2}, stationIds: [${w.ids.garden}, ${w.ids.ridge}]) {
      date dayOfYear total counts { count speciesId species { commonName } } } }`);
    expect(data.dailyDetectionCounts).toEqual([
      { date: '2025-06-09', dayOfYear: 160, total: 1, counts: [{ count: 1, speciesId: gid('Species', blackbird), species: { commonName: 'Eurasian Blackbird' } }] },
      {
        date: '2025-06-10',
        dayOfYear: 161,
        total: 5,
        counts: [
          { count: 3, speciesId: gid('Species', blackbird), species: { commonName: 'Eurasian Blackbird' } },
          { count: 1, speciesId: gid('Species', robin), species: { commonName: 'European Robin' } },
          { count: 1, speciesId: gid('Species', thrush), species: { commonName: 'Song Thrush' } },
        ],
      },
    ]);
    const robins = await w.data(`{ dailyDetectionCounts(speciesIds: [${robin}]) { total } }`);
    expect(robins.dailyDetectionCounts).toEqual([{ total: 3 }]);
  });

  test('timeOfDayDetectionCounts: hours in each station zone, filter group F and box apply', async () => {
    const data = await w.data(`{
      garden: timeOfDayDetectionCounts(stationIds: [${w.ids.garden}]) { speciesId count bins { key count } species { commonName } }
      early: timeOfDayDetectionCounts(stationIds: [${w.ids.garden}], timeOfDayLte: 6) { speciesId count }
      none: timeOfDayDetectionCounts(scoreGt: 10) { count }
    }`);
    expect(data.garden).toEqual([
      { speciesId: gid('Species', blackbird), count: 2, bins: [{ key: 12, count: 1 }, { key: 13, count: 1 }], species: { commonName: 'Eurasian Blackbird' } },
      { speciesId: gid('Species', robin), count: 1, bins: [{ key: 5, count: 1 }], species: { commonName: 'European Robin' } },
    ]);
    expect(data.early).toEqual([{ speciesId: gid('Species', robin), count: 1 }]);
    expect(data.none).toEqual([]);
  });
});

describe('species', () => {
  test('by id or exact scientific name, with its fields', async () => {
    const data = await w.data(`{
      byName: species(scientificName: "turdus MERULA") { id commonName scientificName alpha alpha6 color imageUrl thumbnailUrl
        serviceUrl registryCode encyclopediaSummary predictionArea range translations { locale commonName encyclopediaUrl } }
      byId: species(id: "${gid('Species', robin)}") { commonName }
      byNumber: species(id: ${robin}) { commonName }
      unknown: species(scientificName: "Nonexistent species") { id }
    }`);
    expect(data.byName).toMatchObject({
      id: gid('Species', blackbird),
      commonName: 'Eurasian Blackbird',
      scientificName: 'Turdus merula',
      alpha: 'EUBL',
      alpha6: 'TURMER',
      serviceUrl: null,
      registryCode: null,
      encyclopediaSummary: null,
      predictionArea: null,
      range: null,
      translations: [{ locale: 'en', commonName: 'Eurasian Blackbird', encyclopediaUrl: null }],
    });
    expect(data.byName.color).toMatch(/^#[0-9a-f]{6}$/);
    expect(data.byName.imageUrl).toBe(`${w.emulator.url}/media/species/${blackbird}/image.svg`);
    expect(data.byId.commonName).toBe('European Robin');
    expect(data.byNumber.commonName).toBe('European Robin');
    expect(data.unknown).toBeNull();
    expect((await w.gql('{ species { id } }')).errors?.[0]?.message).toBe('species: give id or scientificName');
  });

  test('detectionCounts, stations, topDetections and translations', async () => {
    const data = await w.data(`{ species(id: ${blackbird}) {
      detectionCounts { count speciesId bins { key count } }
      hourly: detectionCounts(interval: "hour", stationIds: [${w.ids.garden}]) { count bins { key count } }
      stations { count stationId station { name } }
      topDetections { totalCount speciesCount nodes { id score station { name } } }
      german: translations(locales: ["de"]) { locale }
    } }`);
    const s = data.species;
    expect(s.detectionCounts).toEqual({ count: 4, speciesId: gid('Species', blackbird), bins: [{ key: '2025-06-10T00:00:00.000+00:00', count: 4 }] });
    expect(s.hourly).toEqual({
      count: 2,
      bins: [
        { key: '2025-06-10T10:00:00.000+00:00', count: 1 },
        { key: '2025-06-10T11:00:00.000+00:00', count: 1 },
      ],
    });
    expect(s.stations).toEqual([
      { count: 2, stationId: gid('Station', w.ids.garden), station: { name: 'Garden' } },
      { count: 1, stationId: gid('Station', w.ids.ridge), station: { name: 'Ridge' } },
      { count: 1, stationId: gid('Station', w.ids.phone), station: { name: 'Phone' } },
    ]);
    expect(s.topDetections.totalCount).toBe(3);
    expect(s.topDetections.speciesCount).toBe(1);
    // Same score (same confidence and place): the newer one wins.
    expect(posted.g60.score).toBe(posted.g120.score);
    const best = posted.g60;
    expect(s.topDetections.nodes.find((n: { station: { name: string } }) => n.station.name === 'Garden').id).toBe(gid('Detection', best.id));
    const scores = s.topDetections.nodes.map((n: { score: number }) => n.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(s.german).toEqual([]);
  });
});

describe('station', () => {
  test('by number, string or Base64 id, with its own fields', async () => {
    const data = await w.data(`{
      byNumber: station(id: ${w.ids.garden}) { id name type timezone continent country state location coords { lat lon }
        locationPrivacy minConfidence minProbability minScore hasProbabilities portableDetections notes source audioUrl videoUrl
        eclipse weather { temp } airPollution { aqi } sensors { accel { x } }
        earliestDetectionAt latestDetectionAt }
      byString: station(id: "${w.ids.garden}") { name }
      byBase64: station(id: "${gid('Station', w.ids.garden)}") { name }
      hidden: station(id: ${w.ids.hidden}) { coords { lat } locationPrivacy }
      phone: station(id: ${w.ids.phone}) { portableDetections }
      missing: station(id: 1) { name }
    }`);
    expect(data.byNumber).toEqual({
      id: gid('Station', w.ids.garden),
      name: 'Garden',
      type: 'analyzerpi',
      timezone: 'Europe/Berlin',
      continent: 'Europe',
      country: null,
      state: null,
      location: null,
      coords: { lat: 52.52, lon: 13.405 },
      locationPrivacy: false,
      minConfidence: 0.5,
      minProbability: 0,
      minScore: 0,
      hasProbabilities: true,
      portableDetections: false,
      notes: null,
      source: null,
      audioUrl: null,
      videoUrl: null,
      eclipse: null,
      weather: null,
      airPollution: null,
      sensors: null,
      earliestDetectionAt: '2025-06-09T13:00:00.000+02:00',
      latestDetectionAt: '2025-06-10T13:00:00.000+02:00',
    });
    expect(data.byString.name).toBe('Garden');
    expect(data.byBase64.name).toBe('Garden');
    expect(data.hidden).toEqual({ coords: null, locationPrivacy: true });
    expect(data.phone.portableDetections).toBe(true);
    expect(data.missing).toBeNull();
    const wrong = await w.gql(`{ station(id: "${gid('Detection', 5)}") { name } }`);
    expect(wrong.errors?.[0]).toMatchObject({ message: `id: "${gid('Detection', 5)}" is a Detection id, not a Station id`, path: ['station'] });
  });

  test('counts, detectionCounts, timeOfDayDetectionCounts, topSpecies, detections and probabilities', async () => {
    const data = await w.data(`{ station(id: ${w.ids.garden}) {
      counts { detections species }
      twoDays: counts(period: {count: 2}) { detections species }
      detectionCounts { speciesId count bins { key count } }
      timeOfDayDetectionCounts(speciesId: ${robin}) { count bins { key count } }
      topSpecies(limit: 1) { speciesId count }
      detections { totalCount speciesCount nodes { id } }
      probabilities { speciesId probability species { commonName } }
    } }`);
    const st = data.station;
    expect(st.counts).toEqual({ detections: 3, species: 2 });
    expect(st.twoDays).toEqual({ detections: 4, species: 2 });
    expect(st.detectionCounts).toEqual([
      { speciesId: gid('Species', blackbird), count: 2, bins: [{ key: '2025-06-10T00:00:00.000+00:00', count: 2 }] },
      { speciesId: gid('Species', robin), count: 1, bins: [{ key: '2025-06-10T00:00:00.000+00:00', count: 1 }] },
    ]);
    expect(st.timeOfDayDetectionCounts).toEqual([{ count: 1, bins: [{ key: 5, count: 1 }] }]);
    expect(st.topSpecies).toEqual([{ speciesId: gid('Species', blackbird), count: 2 }]);
    expect(st.detections).toEqual({
      totalCount: 3,
      speciesCount: 2,
      nodes: [posted.g60, posted.g120, posted.gRobin].map((p) => ({ id: gid('Detection', p.id) })),
    });
    expect(st.probabilities).toHaveLength(2);
    const byId = Object.fromEntries(st.probabilities.map((p: { speciesId: string; probability: number }) => [p.speciesId, p.probability]));
    expect(byId[gid('Species', blackbird)]).toBe(posted.g60.probability);
    expect(byId[gid('Species', robin)]).toBe(posted.gRobin.probability);
  });

  test('sensors of a puc station: no readings, empty histories', async () => {
    const data = await w.data(`{ station(id: ${w.ids.sensor}) { sensors {
      accel { x } environment { temperature } light { nir } location { lat } mag { z } system { sdCapacity }
      accelHistory(first: 5) { totalCount nodes { x } edges { cursor } pageInfo { hasNextPage hasPreviousPage } }
      systemHistory(last: 5, period: {count: 1, unit: "week"}) { totalCount }
    } } }`);
    expect(data.station.sensors).toEqual({
      accel: null,
      environment: null,
      light: null,
      location: null,
      mag: null,
      system: null,
      accelHistory: { totalCount: 0, nodes: [], edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false } },
      systemHistory: { totalCount: 0 },
    });
  });
});

describe('detection fields', () => {
  test('as REST stored them, timestamps in the station zone, ids and links', async () => {
    const data = await w.data(`{ detections(stationIds: [${w.ids.garden}], first: 1) { nodes {
      id speciesId certainty confidence probability score timestamp eclipse coords { lat lon }
      favoriteUrl flagUrl voteUrl soundscape { id } species { commonName } station { name } } } }`);
    const rest = await w.get<{ detection: { certainty: string } }>(w.station(`/detections/${posted.g60.id}`, 'garden-token'));
    expect(data.detections.nodes[0]).toEqual({
      id: gid('Detection', posted.g60.id),
      speciesId: gid('Species', blackbird),
      certainty: rest.body.detection.certainty,
      confidence: 0.9,
      probability: posted.g60.probability,
      score: posted.g60.score,
      timestamp: '2025-06-10T13:00:00.000+02:00',
      eclipse: null,
      coords: { lat: 52.52, lon: 13.405 },
      favoriteUrl: `${w.emulator.url}/detections/${posted.g60.id}/favorite`,
      flagUrl: `${w.emulator.url}/detections/${posted.g60.id}/flag`,
      voteUrl: `${w.emulator.url}/detections/${posted.g60.id}/vote`,
      soundscape: null,
      species: { commonName: 'Eurasian Blackbird' },
      station: { name: 'Garden' },
    });
    expect(Buffer.from(data.detections.nodes[0].id, 'base64').toString()).toBe(`Detection:${posted.g60.id}`);
  });

  test('an Int beyond 32 bits is an error; ids beyond 32 bits are fine', async () => {
    const big = await w.gql('{ detections(first: 3000000000) { totalCount } }');
    expect(big.errors?.[0]?.message).toMatch(/Int cannot represent non 32-bit signed integer value: 3000000000/);
    expect(w.ids.garden).toBeGreaterThan(2 ** 31);
    expect((await w.data(`{ station(id: ${w.ids.garden}) { name } }`)).station.name).toBe('Garden');
  });
});
