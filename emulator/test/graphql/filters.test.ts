import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeFlac } from '../flac-fixture.js';
import { gid } from './helpers.js';
import { SPECIES, startWorld, type PostedDetection, type World } from './world.js';

/** The detection filters: group F at its boundaries, the box, the period defaults and the lists. */

let w: World;
const d = {} as Record<
  'g1' | 'g2' | 'r1' | 'p1' | 'h1' | 'low' | 'old' | 'bat' | 'cricket' | 'sound',
  PostedDetection
>;

async function listed(args: string): Promise<string[]> {
  const data = await w.data<{ detections: { nodes: { id: string }[] } }>(`{ detections(first: 100, ${args}) { nodes { id } } }`);
  return data.detections.nodes.map((n) => n.id);
}

/** Which of the given detections the query lists. */
async function which(args: string, ...names: (keyof typeof d)[]): Promise<string[]> {
  const ids = await listed(args);
  return names.filter((n) => ids.includes(gid('Detection', d[n].id)));
}

async function errorOf(args: string): Promise<string | undefined> {
  return (await w.gql(`{ detections(${args}) { totalCount } }`)).errors?.[0]?.message;
}

beforeAll(async () => {
  w = await startWorld();
  d.g1 = await w.detect('garden', 60);
  // 03:30 UTC: 05:30 in Berlin, 23:30 of the day before in New York.
  d.g2 = await w.detect('garden', 510, { ...SPECIES.robin, confidence: 0.8 });
  d.r1 = await w.detect('ridge', 510, { ...SPECIES.thrush, confidence: 0.7 });
  d.p1 = await w.detect('phone', 120, { confidence: 0.95 });
  d.h1 = await w.detect('hidden', 30);
  d.low = await w.detect('garden', 15, { confidence: 0.4 });
  d.old = await w.detect('garden', 25 * 60);
  d.bat = await w.detect('garden', 45, SPECIES.pipistrelle);
  d.cricket = await w.detect('ridge', 50, SPECIES.cricket);
  const upload = await w.post(w.station(`/soundscapes?timestamp=${new Date(Date.UTC(2025, 5, 10, 11, 0)).toISOString()}`, 'garden-token'), {
    body: makeFlac(),
    headers: { 'content-type': 'audio/flac' },
  });
  expect(upload.status, upload.text).toBe(201);
  d.sound = await w.detect('garden', 59, { soundscapeId: upload.body.soundscape.id, soundscapeStartTime: 1 });
});
afterAll(() => w.stop());

describe('filter group F', () => {
  test.each(['score', 'confidence', 'probability'] as const)('%s: Gt and Lt are strict, Gte and Lte inclusive', async (name) => {
    const value = d.g1[name];
    expect(await which(`${name}Gte: ${value}`, 'g1')).toEqual(['g1']);
    expect(await which(`${name}Gt: ${value}`, 'g1')).toEqual([]);
    expect(await which(`${name}Lte: ${value}`, 'g1')).toEqual(['g1']);
    expect(await which(`${name}Lt: ${value}`, 'g1')).toEqual([]);
    expect(await which(`${name}Gt: ${value - 0.001}, ${name}Lt: ${value + 0.001}`, 'g1')).toEqual(['g1']);
  });

  test('time of day is the hour in the station zone, both bounds inclusive, wrapping past midnight', async () => {
    expect(await which('timeOfDayGte: 5', 'g2', 'r1', 'g1')).toEqual(['g2', 'r1', 'g1']);
    expect(await which('timeOfDayGte: 6', 'g2')).toEqual([]);
    expect(await which('timeOfDayLte: 5', 'g2', 'r1', 'g1')).toEqual(['g2']);
    expect(await which('timeOfDayLte: 4', 'g2')).toEqual([]);
    expect(await which('timeOfDayGte: 5, timeOfDayLte: 5', 'g2', 'r1', 'g1')).toEqual(['g2']);
    expect(await which('timeOfDayGte: 23, timeOfDayLte: 5', 'g2', 'r1', 'g1')).toEqual(['g2', 'r1']);
    expect(await errorOf('timeOfDayGte: 24')).toBe('timeOfDayGte must be an hour of the day from 0 to 23, got 24');
  });
});

describe('bounding box', () => {
  test('includes its corners and edges', async () => {
    expect(await which('sw: {lat: 52.52, lon: 13.405}, ne: {lat: 53, lon: 14}', 'g1', 'r1')).toEqual(['g1']);
    expect(await which('sw: {lat: 52, lon: 13}, ne: {lat: 52.52, lon: 13.405}', 'g1')).toEqual(['g1']);
    expect(await which('sw: {lat: 52.5201, lon: 13}, ne: {lat: 53, lon: 14}', 'g1')).toEqual([]);
  });

  test('crosses the antimeridian when sw.lon > ne.lon', async () => {
    expect(await which('sw: {lat: 0, lon: 170}, ne: {lat: 60, lon: -70}', 'r1', 'g1')).toEqual(['r1']);
  });

  test('sees a private station only where its rounded coordinates are', async () => {
    expect(await which('sw: {lat: 47.12, lon: 8.56}, ne: {lat: 47.13, lon: 8.57}', 'h1')).toEqual([]);
    expect(await which('sw: {lat: 47.09, lon: 8.59}, ne: {lat: 47.11, lon: 8.61}', 'h1')).toEqual(['h1']);
    const data = await w.data(`{ detections(stationIds: [${w.ids.hidden}]) { nodes { coords { lat lon } station { coords { lat } } } } }`);
    expect(data.detections.nodes).toEqual([{ coords: { lat: 47.1, lon: 8.6 }, station: { coords: null } }]);
  });

  test('needs both corners, south-west below north-east, within range', async () => {
    expect(await errorOf('ne: {lat: 1, lon: 1}')).toBe('ne and sw go together: give both corners of the bounding box');
    expect(await errorOf('sw: {lat: 2, lon: 0}, ne: {lat: 1, lon: 1}')).toMatch(/^sw\.lat \(2\) is north of ne\.lat \(1\)/);
    expect(await errorOf('sw: {lat: -91, lon: 0}, ne: {lat: 1, lon: 1}')).toBe('sw.lat must be between -90 and 90, got -91');
  });
});

describe('period', () => {
  test('defaults to the last 24 hours', async () => {
    expect(await which('', 'g1', 'old')).toEqual(['g1']);
    const counts = await w.data(`{ counts(stationIds: [${w.ids.garden}]) { detections } c2: counts(stationIds: [${w.ids.garden}], period: {count: 2}) { detections } }`);
    expect(counts.c2.detections - counts.counts.detections).toBe(1);
  });

  test('count and unit reach back that far, the bound included', async () => {
    expect(await which('period: {count: 2, unit: "day"}', 'g1', 'old')).toEqual(['g1', 'old']);
    expect(await which('period: {count: 1, unit: "hour"}', 'g1', 'bat', 'g2')).toEqual(['g1', 'bat']);
    expect(await which('period: {unit: "week"}', 'old')).toEqual(['old']);
  });

  test('from and to are whole UTC days, both inclusive', async () => {
    expect(await which('period: {from: "2025-06-09", to: "2025-06-09"}', 'g1', 'old')).toEqual(['old']);
    expect(await which('period: {from: "2025-06-10"}', 'g1', 'old')).toEqual(['g1']);
    expect(await which('period: {to: "2025-06-09"}', 'g1', 'old')).toEqual(['old']);
  });

  test('from and to also take a full ISO time (its UTC date), the zero time of generated clients too', async () => {
    expect(await which('period: {from: "2025-06-09T00:00:00.000Z", to: "2025-06-09T23:59:59Z"}', 'g1', 'old')).toEqual(['old']);
    expect(await which('period: {from: "2025-06-10T01:30:00+02:00"}', 'g1', 'old')).toEqual(['g1', 'old']);
    expect(await which('period: {from: "0001-01-01T00:00:00Z", to: "2025-06-09T12:00:00Z"}', 'g1', 'old')).toEqual(['old']);
    // The same through a variable (parseValue), as generated clients send it.
    const viaVariable = await w.gql(`query($p: InputDuration) { counts(stationIds: [${w.ids.garden}], period: $p) { detections } }`, {
      p: { from: '0001-01-01T00:00:00Z', to: '2025-06-10T00:00:00.000Z' },
    });
    expect(viaVariable.errors).toBeUndefined();
    expect(await errorOf('period: {from: "2025-06-10T25:00:00Z"}')).toMatch(/ISO8601Date must be a date YYYY-MM-DD or an ISO 8601 time/);
  });

  test("count and unit with the zero time as from and to (a Go client's unset times) is the relative period", async () => {
    const zero = '0001-01-01T00:00:00Z';
    expect(await which(`period: {count: 2, unit: "day", from: "${zero}", to: "${zero}"}`, 'g1', 'old')).toEqual(['g1', 'old']);
    const viaVariable = await w.gql(`query($p: InputDuration) { counts(stationIds: [${w.ids.garden}], period: $p) { detections } }`, {
      p: { count: 1, unit: 'hour', from: zero, to: zero },
    });
    expect(viaVariable.errors).toBeUndefined();
  });

  test('is refused when it does not make sense', async () => {
    expect(await errorOf('period: {count: 0, unit: "day"}')).toBe('period.count must be 1 or more, got 0');
    expect(await errorOf('period: {unit: "fortnight"}')).toBe('period.unit must be one of hour, day, week, month, year, got "fortnight"');
    expect(await errorOf('period: {count: 1, from: "2025-06-01"}')).toBe('period: give either count and unit, or from and to, not both');
    expect(await errorOf('period: {from: "2025-06-02", to: "2025-06-01"}')).toBe('period: from (2025-06-02) is after to (2025-06-01)');
    expect(await errorOf('period: {from: "2025-02-30"}')).toMatch(/ISO8601Date must be a date YYYY-MM-DD or an ISO 8601 time/);
  });
});

describe('lists and switches', () => {
  test('stations, types, continents and countries', async () => {
    expect(await which(`stationIds: [${w.ids.ridge}]`, 'g1', 'r1', 'cricket')).toEqual(['r1', 'cricket']);
    expect(await which(`stationIds: ["${gid('Station', w.ids.phone)}"]`, 'g1', 'p1')).toEqual(['p1']);
    expect(await which('stationTypes: ["stream_audio", "mobile"]', 'g1', 'r1', 'p1')).toEqual(['r1', 'p1']);
    expect(await which('continents: ["North America"]', 'g1', 'r1', 'h1')).toEqual(['r1']);
    expect(await which('continents: ["Europe"]', 'g1', 'r1', 'h1', 'p1')).toEqual(['g1', 'h1', 'p1']);
    expect(await which('countries: ["DE"]', 'g1', 'r1')).toEqual([]);
    expect(await which('stationIds: []', 'g1', 'r1')).toEqual(['g1', 'r1']);
    expect(await errorOf('stationTypes: ["tower"]')).toBe('stationTypes[0]: "tower" is not one of analyzerpi, puc, mobile, stream_video, stream_audio');
    expect(await errorOf('continents: ["Atlantis"]')).toMatch(/^continents\[0\]: "Atlantis" is not one of Africa, /);
  });

  test('species, classifications and recording modes', async () => {
    const robin = w.emulator.store.species.byScientificName(SPECIES.robin.scientificName)!.id;
    const thrush = w.emulator.store.species.byScientificName(SPECIES.thrush.scientificName)!.id;
    expect(await which(`speciesId: ${robin}`, 'g1', 'g2', 'r1')).toEqual(['g2']);
    expect(await which(`speciesId: "${gid('Species', robin)}", speciesIds: [${thrush}]`, 'g1', 'g2', 'r1')).toEqual(['g2', 'r1']);
    expect(await which('classifications: ["bat", "insect"]', 'g1', 'bat', 'cricket')).toEqual(['bat', 'cricket']);
    expect(await which('recordingModes: ["live"]', 'g1', 'r1', 'p1')).toEqual(['r1', 'p1']);
    expect(await errorOf('classifications: ["fish"]')).toBe('classifications[0]: "fish" is not one of avian, amphibian, reptile, mammal, bat, insect');
    expect(await errorOf(`speciesId: "${gid('Station', robin)}"`)).toBe(`speciesId: "${gid('Station', robin)}" is a Station id, not a Species id`);
  });

  test("each station's minimums apply unless overrideStationFilters", async () => {
    expect(await which('', 'low', 'g1')).toEqual(['g1']);
    expect(await which('overrideStationFilters: true', 'low', 'g1')).toEqual(['low', 'g1']);
  });

  test('uniqueStations keeps the latest matching detection of each station', async () => {
    const ids = await listed('uniqueStations: true');
    expect(ids).toEqual([d.h1, d.bat, d.cricket, d.p1].map((x) => gid('Detection', x.id)));
    expect(await listed('uniqueStations: true, classifications: ["avian"]')).toEqual(
      [d.h1, d.sound, d.p1, d.r1].map((x) => gid('Detection', x.id)),
    );
  });

  test('validSoundscape keeps detections with uploaded audio', async () => {
    expect(await listed('validSoundscape: true')).toEqual([gid('Detection', d.sound.id)]);
    const data = await w.data(`{ detections(validSoundscape: true) { nodes { soundscape { id startTime endTime duration mode url downloadFilename timestamp station { name } } } } }`);
    expect(data.detections.nodes[0].soundscape).toMatchObject({ startTime: 1, endTime: 4, mode: 'analyzerpi', station: { name: 'Garden' } });
    expect(data.detections.nodes[0].soundscape.url).toMatch(/\/media\/soundscapes\/.+\.flac$/);
    expect(data.detections.nodes[0].soundscape.timestamp).toBe('2025-06-10T13:00:00.000+02:00');
  });

  test('vote and eclipse match nothing (no votes, no eclipse path here); sortBy orders', async () => {
    expect(await listed('vote: 1')).toEqual([]);
    expect(await errorOf('vote: 2')).toBe('vote must be 1 (up-votes) or -1 (down-votes), got 2');
    expect(await listed('eclipse: true')).toEqual([]);
    expect(await listed('eclipse: false')).toEqual(await listed(''));
    const byScore = await w.data(`{ detections(first: 100, sortBy: "score") { nodes { score } } }`);
    const scores = byScore.detections.nodes.map((n: { score: number }) => n.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(await errorOf('sortBy: "random"')).toBe('sortBy must be one of timestamp, score, confidence, got "random"');
  });
});
