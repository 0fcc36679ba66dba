import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LabelsFileError } from '../../src/ingest/errors.js';
import { LABELS_FILE_MAX_BYTES, Labels, parseLabelLines, resolveSpecies } from '../../src/ingest/labels.js';
import { nameKey } from '../../src/policy/names.js';
import { fixture } from '../helpers/paths.js';
import { DE_LABELS, EN_LABELS, englishLabels, englishWithGermanLabels, realText } from './real-labels.js';

describe('parseLabelLines', () => {
  it('reads all 6522 lines of the real English labels (no final newline) and the German ones (final newline)', () => {
    const en = parseLabelLines(readFileSync(EN_LABELS, 'utf8'));
    const de = parseLabelLines(readFileSync(DE_LABELS, 'utf8'));
    expect(en).toHaveLength(6522);
    expect(de).toHaveLength(6522);
    expect(en[0]).toEqual({ scientificName: 'Abroscopus albogularis', commonName: 'Rufous-faced Warbler' });
    expect(en[6521]).toEqual({ scientificName: 'Zosterops virens', commonName: 'Cape White-eye' });
    expect(de[6521]).toEqual({ scientificName: 'Zosterops virens', commonName: 'Kapbrillenvogel' });
    expect(en).toContainEqual({ scientificName: 'Human vocal', commonName: 'Human vocal' });
    expect(en).toContainEqual({ scientificName: 'Dog', commonName: 'Dog' });
  });

  it('reads the real species lists in the same format (the 2022-03-02 one without a final newline)', () => {
    const list = (dir: string) => parseLabelLines(realText(dir, 'species_list.txt'));
    expect(list('birdnet-analyzer_ea464544_2022-03-02')).toEqual([
      { scientificName: 'Phylloscopus collybita', commonName: 'Common Chiffchaff' },
      { scientificName: 'Fringilla coelebs', commonName: 'Common Chaffinch' },
      { scientificName: 'Falco tinnunculus', commonName: 'Eurasian Kestrel' },
    ]);
    expect(list('birdnet-analyzer_6e477a19_2022-03-17')).toHaveLength(41);
    expect(list('birdnet-analyzer_ccf4b228_2023-03-28')).toHaveLength(48);
    expect(list('birdnet-analyzer_ccf4b228_2023-03-28')[0]).toEqual({ scientificName: 'Accipiter cooperii', commonName: "Cooper's Hawk" });
  });

  it('accepts a BOM, CRLF, blank lines and splits at the first underscore only', () => {
    const entries = parseLabelLines('\uFEFFParus major_Great Tit\r\n\r\nFoo bar_Odd_Name\r\nNoise');
    expect(entries).toEqual([
      { scientificName: 'Parus major', commonName: 'Great Tit' },
      { scientificName: 'Foo bar', commonName: 'Odd_Name' },
      { scientificName: 'Noise', commonName: 'Noise' },
    ]);
  });
});

describe('Labels', () => {
  it('looks up common and scientific names case-insensitively with whitespace normalised', () => {
    const labels = englishLabels();
    expect(labels.size).toBe(6522);
    expect(labels.byCommonName('Common Chiffchaff')).toEqual({
      scientificName: 'Phylloscopus collybita',
      commonName: 'Common Chiffchaff',
    });
    expect(labels.byCommonName('  common   CHIFFCHAFF ')?.scientificName).toBe('Phylloscopus collybita');
    expect(labels.byScientificName('poecile ATRICAPILLUS')?.commonName).toBe('Black-capped Chickadee');
    expect(labels.byCommonName('Human vocal')?.scientificName).toBe('Human vocal');
    expect(labels.byCommonName('Schwarzkopfmeise')).toBeUndefined();
  });

  it('resolves German names through the localised file and answers with the primary (English) name', () => {
    const labels = englishWithGermanLabels();
    expect(labels.byCommonName('Schwarzkopfmeise')).toEqual({
      scientificName: 'Poecile atricapillus',
      commonName: 'Black-capped Chickadee',
    });
    expect(labels.byCommonName('Grauhäubchenmeise')?.scientificName).toBe('Baeolophus bicolor');
    // A decomposed umlaut (NFD, as some tools write) matches too.
    expect(labels.byCommonName('Grauha\u0308ubchenmeise')?.scientificName).toBe('Baeolophus bicolor');
    expect(labels.byCommonName('Black-capped Chickadee')?.scientificName).toBe('Poecile atricapillus');
    expect(labels.byCommonName('Hund')).toEqual({ scientificName: 'Dog', commonName: 'Dog' });
  });

  it('reports an ambiguous common name with both scientific names', () => {
    const labels = Labels.fromText({ name: 'l.txt', text: readFileSync(fixture('results/labels-ambiguous.txt'), 'utf8') });
    const found = labels.lookupCommonName('crow');
    expect(found.kind).toBe('ambiguous');
    expect(labels.byCommonName('Crow')).toBeUndefined();
    const r = resolveSpecies({ commonName: 'Crow' }, labels);
    expect(r).toEqual({
      ok: false,
      problem: 'common name "Crow" is ambiguous in the labels: "Corvus corone" (Crow) and "Corvus brachyrhynchos" (Crow)',
    });
  });

  it('loads files from disk and names a missing or empty file', async () => {
    const labels = await Labels.load(fixture('results/labels-ambiguous.txt'), fixture('results/labels-ambiguous_de.txt'));
    expect(labels.byCommonName('Amsel')).toEqual({ scientificName: 'Turdus merula', commonName: 'Eurasian Blackbird' });
    await expect(Labels.load(fixture('results/no-such-labels.txt'))).rejects.toThrow(
      /labels file .*no-such-labels\.txt: cannot be read \(ENOENT\)/,
    );
    expect(() => Labels.fromText({ name: 'empty.txt', text: '\n\n' })).toThrow(LabelsFileError);
  });
});

describe('resolveSpecies', () => {
  const labels = englishWithGermanLabels();

  it('uses the primary common name when the scientific name is known', () => {
    expect(resolveSpecies({ scientificName: 'Poecile atricapillus', commonName: 'Schwarzkopfmeise' }, labels)).toEqual({
      ok: true,
      species: { scientificName: 'Poecile atricapillus', commonName: 'Black-capped Chickadee' },
    });
  });

  it('keeps the names as written when the labels do not know the scientific name', () => {
    expect(resolveSpecies({ scientificName: 'Novus avis', commonName: 'New Bird' }, labels)).toEqual({
      ok: true,
      species: { scientificName: 'Novus avis', commonName: 'New Bird' },
    });
    expect(resolveSpecies({ scientificName: 'Novus avis', commonName: 'New Bird' }, undefined).ok).toBe(true);
  });

  it('explains every unresolvable case', () => {
    expect(resolveSpecies({ commonName: 'No Such Bird' }, labels)).toEqual({
      ok: false,
      problem: 'common name "No Such Bird" is not in the labels file(s)',
    });
    expect(resolveSpecies({ commonName: 'Great Tit' }, undefined)).toEqual({
      ok: false,
      problem: 'only the common name "Great Tit" is given and no labels file is configured to find its scientific name',
    });
    expect(resolveSpecies({ scientificName: 'Novus avis' }, labels).ok).toBe(false);
    expect(resolveSpecies({}, labels)).toEqual({ ok: false, problem: 'neither a scientific nor a common name' });
  });

  it('nameKey normalises case, spacing and Unicode form', () => {
    expect(nameKey('  Grauha\u0308ubchen   MEISE ')).toBe('grauhäubchen meise');
  });
});

describe('Labels.load: only regular files, read with a bound', () => {
  let dir: string | undefined;
  let fifo: string | undefined;

  afterEach(() => {
    // Without the regular-file check a read of the FIFO waits for a writer for ever, holding
    // one of libuv's threads: a writer that opens and closes at once ends that read.
    if (fifo) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: nobody is reading it, as it should be
      }
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = fifo = undefined;
  });

  it('refuses a labels file (primary or localised) that is a FIFO, naming the file, instead of blocking on it', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'labels-fifo-'));
    fifo = path.join(dir, 'Labels.txt');
    execFileSync('mkfifo', [fifo]);
    const err = await Labels.load(fifo).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LabelsFileError);
    expect((err as LabelsFileError).message).toContain(fifo);
    expect((err as LabelsFileError).message).toContain('FIFO');

    const primary = path.join(dir, 'en.txt');
    writeFileSync(primary, 'Parus major_Great Tit\n');
    const localized = await Labels.load(primary, fifo).catch((e: unknown) => e);
    expect(localized).toBeInstanceOf(LabelsFileError);
    expect((localized as LabelsFileError).fileName).toBe(fifo);
  });

  it('refuses a labels file larger than its bound without reading it whole', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'labels-big-'));
    const big = path.join(dir, 'Labels.txt');
    writeFileSync(big, '');
    truncateSync(big, LABELS_FILE_MAX_BYTES + 1);
    const err = await Labels.load(big).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LabelsFileError);
    expect((err as LabelsFileError).message).toContain(`larger than ${LABELS_FILE_MAX_BYTES} bytes`);
  });
});
