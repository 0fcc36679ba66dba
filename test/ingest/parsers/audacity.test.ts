import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ResultFileError } from '../../../src/ingest/errors.js';
import { parse } from '../../../src/ingest/parsers/audacity.js';
import { fixture } from '../../helpers/paths.js';
import { englishLabels, realText } from '../real-labels.js';

const own = (name: string) => readFileSync(fixture('results', name), 'utf8');
const TXT = 'soundscape.BirdNET.results.txt';

describe('Audacity labels parser', () => {
  it('reads the 2022-03-02 variant with the confidence joined into the label (3 tab fields)', () => {
    const r = parse(realText('birdnet-analyzer_ea464544_2022-03-02', TXT), { fileName: TXT });
    expect(r.errors).toEqual([]);
    expect(r.format).toBe('audacity');
    expect(r.detections).toEqual([
      { startSec: 0, endSec: 3, scientificName: 'Phylloscopus collybita', commonName: 'Common Chiffchaff', confidence: 0.17441706, line: 1 },
      { startSec: 0, endSec: 3, scientificName: 'Circus aeruginosus', commonName: 'Eurasian Marsh-Harrier', confidence: 0.1029124, line: 2 },
      { startSec: 3, endSec: 6, scientificName: 'Phylloscopus collybita', commonName: 'Common Chiffchaff', confidence: 0.6906715, line: 3 },
      { startSec: 3, endSec: 6, scientificName: 'Circus aeruginosus', commonName: 'Eurasian Marsh-Harrier', confidence: 0.16652007, line: 4 },
      { startSec: 3, endSec: 6, scientificName: 'Picus viridis', commonName: 'Eurasian Green Woodpecker', confidence: 0.10363445, line: 5 },
    ]);
  });

  it('reads the 2022-03-17 variant with the confidence as a 4th field', () => {
    const r = parse(realText('birdnet-analyzer_6e477a19_2022-03-17', TXT), { fileName: TXT, labels: englishLabels() });
    expect(r.errors).toEqual([]);
    expect(r.detections).toHaveLength(33);
    expect(r.detections[0]).toEqual({
      startSec: 0, endSec: 3, scientificName: 'Poecile atricapillus', commonName: 'Black-capped Chickadee', confidence: 0.4102, line: 1,
    });
    expect(r.detections[32]).toEqual({
      startSec: 96, endSec: 99, scientificName: 'Spinus tristis', commonName: 'American Goldfinch', confidence: 0.2386, line: 33,
    });
  });

  it('splits the confidence from the right and the names at the first ", " (comma in a common name, CRLF)', () => {
    const r = parse(own('comma-in-name.BirdNET.results.txt'), { fileName: 'c.txt' });
    expect(r.errors).toEqual([]);
    expect(r.detections).toEqual([
      { startSec: 0, endSec: 3, scientificName: 'Ardea cinerea', commonName: 'Grey Heron, Common', confidence: 0.8123, line: 1 },
      { startSec: 3, endSec: 6, scientificName: 'Ardea cinerea', commonName: 'Grey Heron, Common', confidence: 0.5, line: 2 },
    ]);
  });

  it('reports garbage rows by line and field and keeps the good rows', () => {
    const name = 'garbage.BirdNET.results.txt';
    const r = parse(own(name), { fileName: name });
    expect(r.detections.map((d) => d.line)).toEqual([1, 8]);
    expect(r.errors).toEqual([
      { line: 2, message: `${name} line 2, field 2 (end): expected a number, found "six"` },
      { line: 3, message: `${name} line 3, field 3 (label), confidence after the last ", ": expected a number, found "high"` },
      { line: 4, message: `${name} line 4, field 3 (label): expected "Scientific name, Common name, confidence", found "Parus major Great Tit"` },
      { line: 5, message: `${name} line 5, row: expected 3 or 4 tab-separated fields, found 1` },
      { line: 6, message: `${name} line 6, field 3 (label): neither a scientific nor a common name` },
      { line: 7, message: `${name} line 7, field 4 (confidence): confidence must be in [0, 1], found 2` },
    ]);
  });

  it('rejects a file that is not tab-separated with a file-level error', () => {
    expect(() => parse(own('wrong-delimiter.BirdNET.results.txt'), { fileName: 'w.txt' })).toThrow(ResultFileError);
    expect(() => parse(own('wrong-delimiter.BirdNET.results.txt'), { fileName: 'w.txt' })).toThrow(
      'w.txt: expected tab-separated Audacity labels (start<TAB>end<TAB>label<TAB>confidence), found "0.0,3.0,Parus major, Great Tit,0.8" on line 1',
    );
  });

  it('an empty file (nothing detected) has no detections', () => {
    expect(parse('', { fileName: 'e.txt' })).toEqual({ format: 'audacity', detections: [], errors: [] });
  });
});
