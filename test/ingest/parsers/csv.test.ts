import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from '../../../src/ingest/parsers/csv.js';
import { fixture } from '../../helpers/paths.js';
import { englishLabels, englishWithGermanLabels, realText } from '../real-labels.js';

const own = (name: string) => readFileSync(fixture('results', name), 'utf8');
const CSV = 'soundscape.BirdNET.results.csv';

describe('CSV results parser', () => {
  it('reads the 2022-03-02 file with the stray ";" in its header, confidences unrounded', () => {
    const r = parse(realText('birdnet-analyzer_ea464544_2022-03-02', CSV), { fileName: CSV });
    expect(r.errors).toEqual([]);
    expect(r.format).toBe('csv');
    expect(r.audioFileName).toBeUndefined();
    expect(r.detections).toEqual([
      { startSec: 0, endSec: 3, scientificName: 'Phylloscopus collybita', commonName: 'Common Chiffchaff', confidence: 0.17441706, line: 2 },
      { startSec: 0, endSec: 3, scientificName: 'Circus aeruginosus', commonName: 'Eurasian Marsh-Harrier', confidence: 0.1029124, line: 3 },
      { startSec: 3, endSec: 6, scientificName: 'Phylloscopus collybita', commonName: 'Common Chiffchaff', confidence: 0.6906715, line: 4 },
      { startSec: 3, endSec: 6, scientificName: 'Circus aeruginosus', commonName: 'Eurasian Marsh-Harrier', confidence: 0.16652007, line: 5 },
      { startSec: 3, endSec: 6, scientificName: 'Picus viridis', commonName: 'Eurasian Green Woodpecker', confidence: 0.10363445, line: 6 },
    ]);
  });

  it('reads the --rtype r table saved under .BirdNET.results.csv (string-sorted rows, no final newline)', () => {
    const r = parse(realText('birdnet-analyzer_6e477a19_2022-03-17', CSV), { fileName: CSV });
    expect(r.errors).toEqual([]);
    expect(r.audioFileName).toBe('soundscape.wav');
    expect(r.detections).toHaveLength(33);
    expect(r.detections[0]).toEqual({
      startSec: 0, endSec: 3, scientificName: 'Poecile atricapillus', commonName: 'Black-capped Chickadee', confidence: 0.4102, line: 2,
    });
    expect(r.detections.map((d) => d.startSec).slice(0, 8)).toEqual([0, 0, 105, 105, 117, 117, 12, 12]);
    expect(r.detections[32]).toEqual({
      startSec: 96, endSec: 99, scientificName: 'Spinus tristis', commonName: 'American Goldfinch', confidence: 0.2386, line: 34,
    });
  });

  it('reads birdnetTools/test_example_1.csv with a Windows path in the File column', () => {
    const r = parse(realText('birdnetTools', 'test_example_1.csv'), { fileName: 'test_example_1.csv', labels: englishLabels() });
    expect(r.errors).toEqual([]);
    expect(r.audioFileName).toBe('14_01_20210213_210000.WAV');
    expect(r.detections).toHaveLength(73);
    expect(r.detections[0]).toEqual({
      startSec: 12, endSec: 15, scientificName: 'Strix varia', commonName: 'Barred Owl', confidence: 0.5702, line: 2,
    });
    expect(r.detections[2]).toMatchObject({ scientificName: 'Palmeria dolei', commonName: 'Akohekohe', confidence: 0.1029 });
    expect(r.detections[72]).toEqual({
      startSec: 597, endSec: 600, scientificName: 'Strix varia', commonName: 'Barred Owl', confidence: 0.2232, line: 74,
    });
  });

  it('keeps a quoted common name with a comma whole (BOM, CRLF, doubled quotes)', () => {
    const r = parse(own('quoted-names.BirdNET.results.csv'), { fileName: 'q.csv' });
    expect(r.errors).toEqual([]);
    expect(r.audioFileName).toBe('heron.wav');
    expect(r.detections).toEqual([
      { startSec: 0, endSec: 3, scientificName: 'Ardea cinerea', commonName: 'Grey Heron, Common', confidence: 0.8123, line: 2 },
      { startSec: 3, endSec: 6, scientificName: 'Ardea cinerea', commonName: 'Grey Heron, Common', confidence: 0.5, line: 3 },
      { startSec: 6, endSec: 9, scientificName: 'Parus major', commonName: 'Great "Tit"', confidence: 0.25, line: 5 },
    ]);
  });

  it('replaces a localised common name by the primary one when the labels know the scientific name', () => {
    const text = 'Start (s),End (s),Scientific name,Common name,Confidence\n0.0,3.0,Poecile atricapillus,Schwarzkopfmeise,0.41\n';
    expect(parse(text, { fileName: 'de.csv', labels: englishWithGermanLabels() }).detections[0]).toMatchObject({
      scientificName: 'Poecile atricapillus',
      commonName: 'Black-capped Chickadee',
    });
  });

  it('reports garbage rows with line and column and keeps the good rows', () => {
    const name = 'garbage.BirdNET.results.csv';
    const r = parse(own(name), { fileName: name });
    expect(r.detections.map((d) => d.line)).toEqual([2]);
    expect(r.errors).toEqual([
      { line: 3, message: `${name} line 3, column "End (s)": expected a number, found "x"` },
      { line: 4, message: `${name} line 4, row: expected 6 fields as in the header, found 7 (an unquoted delimiter inside a name?)` },
      { line: 5, message: `${name} line 5, column "Confidence": confidence must be in [0, 1], found -0.1` },
      { line: 6, message: `${name} line 6, column "Scientific name": neither a scientific nor a common name` },
      { line: 7, message: `${name} line 7, row: expected 6 fields as in the header, found 5` },
      { line: 8, message: `${name} line 8, row: unterminated quoted field opened on line 8` },
    ]);
  });

  it('rejects a semicolon-separated file under the CSV suffix with a clear file-level error', () => {
    expect(() => parse(own('wrong-delimiter.BirdNET.results.csv'), { fileName: 'w.csv' })).toThrow(
      'w.csv: expected comma-separated CSV results header with columns "Start (s)", "End (s)", "Confidence", ' +
        '"Scientific name" or "Common name", found "Start (s);End (s);Scientific name;Common name;Confidence" (the header looks semicolon-separated)',
    );
  });

  it('a header without rows is a file without detections', () => {
    expect(parse('Start (s),End (s),Scientific name,Common name,Confidence\n', { fileName: 'h.csv' })).toEqual({
      format: 'csv',
      detections: [],
      errors: [],
    });
  });
});
