import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SpeciesInfoResponse, SpeciesLookupResponse } from '../../src/wire/types.js';
import { alpha6Code, alphaCode, speciesColor } from '../src/catalog/codes.js';
import { inferClassification } from '../src/catalog/classification.js';
import { catalogFromLabels, parseLabels, readLabelsFile } from '../src/catalog/labels.js';
import { DEFAULT_LABELS_FILE, EmulatorOptionError } from '../src/index.js';
import { realFixture, tempDir } from '../../test/helpers/paths.js';
import { expectKeys, FULL_SPECIES_KEYS, startService, type TestService } from './helpers.js';

const REAL_LABELS = realFixture('birdnet-analyzer_labels_V2.4/BirdNET_GLOBAL_6K_V2.4_Labels.txt');

describe('labels file', () => {
  test('the real analyzer labels: 6522 lines, noise classes left out', () => {
    const species = readLabelsFile(REAL_LABELS);
    // 11 labels are not species: Dog, Engine, Environmental, Fireworks, Gun, Human non-vocal,
    // Human vocal, Human whistle, Noise, Power tools, Siren
    expect(species).toHaveLength(6522 - 11);
    const names = new Set(species.map((s) => s.scientificName));
    expect(names.has('Human vocal')).toBe(false);
    expect(names.has('Dog')).toBe(false);
    // a species whose common name is its scientific name stays
    expect(names.has('Gryllus assimilis')).toBe(true);
    const byName = new Map(species.map((s) => [s.scientificName, s]));
    expect(byName.get('Lithobates catesbeianus')!.classification).toBe('amphibian');
    expect(byName.get('Oecanthus fultoni')!.classification).toBe('insect');
    expect(byName.get('Tamias striatus')!.classification).toBe('mammal');
    expect(byName.get('Strix varia')!.classification).toBe('avian');
  });

  test('BOM, CRLF, blank lines, comments and a classification column', () => {
    const text = '\uFEFFTurdus merula_Eurasian Blackbird\r\n\r\n# comment\r\nMyotis myotis_Greater Mouse-eared Bat_bat\r\nNoise_Noise\r\n';
    expect(parseLabels(text, 'x.txt')).toEqual([
      { scientificName: 'Turdus merula', commonName: 'Eurasian Blackbird', classification: undefined },
      { scientificName: 'Myotis myotis', commonName: 'Greater Mouse-eared Bat', classification: 'bat' },
    ]);
  });

  test('malformed lines name the file and line', () => {
    expect(() => parseLabels('Turdus merula_Blackbird\nno separator here\n', 'my.txt')).toThrow(EmulatorOptionError);
    expect(() => parseLabels('Turdus merula_Blackbird\nno separator here\n', 'my.txt')).toThrow(/my\.txt:2/);
    expect(() => parseLabels('Turdus merula_Blackbird_fungus\n', 'my.txt')).toThrow(/classification "fungus"/);
  });

  test('the shipped catalog holds every species of the real result files', () => {
    const names = new Set(readLabelsFile(DEFAULT_LABELS_FILE).map((s) => s.scientificName));
    const results = [
      ['birdnet-analyzer_ea464544_2022-03-02/soundscape.BirdNET.results.csv', 2],
      ['birdnet-analyzer_6e477a19_2022-03-17/soundscape.BirdNET.results.csv', 3],
      ['birdnetTools/test_example_1.csv', 2],
    ] as const;
    for (const [file, column] of results) {
      const rows = readFileSync(realFixture(file), 'utf8').trim().split(/\r?\n/).slice(1);
      for (const row of rows) expect(names, file).toContain(row.split(',')[column]);
    }
    for (const required of ['Pica pica', 'Haemorhous mexicanus', 'Cyanocitta cristata', 'Palmeria dolei']) {
      expect(names).toContain(required);
    }
    const catalog = readLabelsFile(DEFAULT_LABELS_FILE);
    const classes = new Set(catalog.map((s) => s.classification));
    expect([...classes].sort()).toEqual(['amphibian', 'avian', 'bat', 'insect', 'mammal']);
  });
});

describe('derived codes', () => {
  test('4-letter alpha codes by the banding rules', () => {
    expect(alphaCode('Black-capped Chickadee')).toBe('BCCH');
    expect(alphaCode('Eurasian Marsh-Harrier')).toBe('EMHA');
    expect(alphaCode('Blue Jay')).toBe('BLJA');
    expect(alphaCode("Cooper's Hawk")).toBe('COHA');
    expect(alphaCode('Yellowhammer')).toBe('YELL');
    expect(alphaCode('Great Black-backed Gull')).toBe('GBBG');
    expect(alphaCode('Akohekohe')).toBe('AKOH');
  });

  test('6-letter codes from the scientific name', () => {
    expect(alpha6Code('Poecile atricapillus')).toBe('POEATR');
    expect(alpha6Code('Pica pica')).toBe('PICPIC');
  });

  test('colours are #rrggbb and stable', () => {
    expect(speciesColor('Turdus merula')).toMatch(/^#[0-9a-f]{6}$/);
    expect(speciesColor('Turdus merula')).toBe(speciesColor('turdus merula '));
    expect(speciesColor('Turdus merula')).not.toBe(speciesColor('Parus major'));
  });

  test('classification by genus', () => {
    expect(inferClassification('Pipistrellus nathusii')).toBe('bat');
    expect(inferClassification('Pseudacris crucifer')).toBe('amphibian');
    expect(inferClassification('Parus major')).toBe('avian');
    expect(catalogFromLabels([{ scientificName: 'Myotis lucifugus', commonName: 'Little Brown Bat' }])[0]).toMatchObject({
      classification: 'bat',
      alpha: null,
      alpha6: null,
    });
  });
});

describe('species endpoints', () => {
  let s: TestService;
  let dir: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    dir = tempDir();
    const labels = path.join(dir.dir, 'labels.txt');
    writeFileSync(labels, 'Turdus merula_Eurasian Blackbird\nPoecile atricapillus_Black-capped Chickadee\nMyotis myotis_Greater Mouse-eared Bat_bat\n');
    s = await startService({ labels });
  });
  afterAll(async () => {
    await s.stop();
    dir.cleanup();
  });

  test('GET /species/{id}: the full species, no authentication', async () => {
    const id = s.emulator.store.species.byScientificName('Poecile atricapillus')!.id;
    const r = await s.get<SpeciesInfoResponse>(`/api/v1/species/${id}`);
    expect(r.status).toBe(200);
    expectKeys(r.body, ['success', 'species']);
    expectKeys(r.body.species, FULL_SPECIES_KEYS);
    expect(r.body.species).toMatchObject({
      id,
      commonName: 'Black-capped Chickadee',
      scientificName: 'Poecile atricapillus',
      classification: 'avian',
      alpha: 'BCCH',
      alpha6: 'POEATR',
      encyclopediaSummary: null,
    });
    expect(r.body.species.imageUrl.startsWith(`${s.emulator.url}/media/`)).toBe(true);
    const image = await fetch(r.body.species.thumbnailUrl);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toContain('image/svg+xml');
  });

  test('GET /species/{id}: 404 for unknown ids', async () => {
    const r = await s.get('/api/v1/species/3999999999');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false });
    expect((await s.get('/api/v1/species/blackbird')).status).toBe(404);
  });

  test('POST /species/lookup: keyed by the requested strings, fields limit the keys', async () => {
    const keys = ['Turdus merula_Eurasian Blackbird', 'poecile atricapillus_Chickadee', 'Nonexistent bird_Nothing'];
    const r = await s.post<SpeciesLookupResponse>('/api/v1/species/lookup', { json: { species: keys } });
    expect(r.status).toBe(200);
    expectKeys(r.body, ['success', 'species']);
    expect(Object.keys(r.body.species).sort()).toEqual([keys[0], keys[1]].sort());
    expectKeys(r.body.species[keys[0]], FULL_SPECIES_KEYS);
    expect(r.body.species[keys[1]].scientificName).toBe('Poecile atricapillus');

    const some = await s.post<SpeciesLookupResponse>('/api/v1/species/lookup', {
      json: { species: [keys[0]], fields: ['id', 'alpha', 'imageUrl'] },
    });
    expectKeys(some.body.species[keys[0]], ['id', 'alpha', 'imageUrl']);
    const blank = await s.post<SpeciesLookupResponse>('/api/v1/species/lookup', { json: { species: [keys[0]], fields: [] } });
    expectKeys(blank.body.species[keys[0]], FULL_SPECIES_KEYS);
  });

  test('POST /species/lookup as form parameters', async () => {
    const r = await s.post<SpeciesLookupResponse>('/api/v1/species/lookup', {
      form: { 'species[]': ['Myotis myotis_Greater Mouse-eared Bat'], 'fields[]': ['classification'] },
    });
    expect(r.status).toBe(200);
    expect(r.body.species).toEqual({ 'Myotis myotis_Greater Mouse-eared Bat': { classification: 'bat' } });
  });
});
