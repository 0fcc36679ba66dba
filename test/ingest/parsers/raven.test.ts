import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ResultFileError } from '../../../src/ingest/errors.js';
import { parse } from '../../../src/ingest/parsers/raven.js';
import { fixture } from '../../helpers/paths.js';
import { englishLabels, englishWithGermanLabels, realText } from '../real-labels.js';

const own = (name: string) => readFileSync(fixture('results', name), 'utf8');
const TABLE = 'soundscape.BirdNET.selection.table.txt';

describe('Raven selection table parser', () => {
  it('reads the 2022-03-02 table (Species Code before Common Name) with names from the labels', () => {
    const r = parse(realText('birdnet-analyzer_ea464544_2022-03-02', TABLE), { fileName: TABLE, labels: englishLabels() });
    expect(r.errors).toEqual([]);
    expect(r.format).toBe('raven');
    expect(r.audioFileName).toBeUndefined();
    expect(r.detections).toEqual([
      { startSec: 0, endSec: 3, scientificName: 'Phylloscopus collybita', commonName: 'Common Chiffchaff', confidence: 0.17441706, line: 2 },
      { startSec: 3, endSec: 6, scientificName: 'Phylloscopus collybita', commonName: 'Common Chiffchaff', confidence: 0.6906715, line: 3 },
    ]);
  });

  it('reads the 2022-03-17 table (33 rows, string-sorted starts kept in file order)', () => {
    const r = parse(realText('birdnet-analyzer_6e477a19_2022-03-17', TABLE), { fileName: TABLE, labels: englishLabels() });
    expect(r.errors).toEqual([]);
    expect(r.detections).toHaveLength(33);
    expect(r.detections[0]).toEqual({
      startSec: 0, endSec: 3, scientificName: 'Poecile atricapillus', commonName: 'Black-capped Chickadee', confidence: 0.4102, line: 2,
    });
    expect(r.detections.slice(2, 7).map((d) => d.startSec)).toEqual([105, 105, 117, 117, 12]);
    expect(r.detections[32]).toEqual({
      startSec: 96, endSec: 99, scientificName: 'Spinus tristis', commonName: 'American Goldfinch', confidence: 0.2386, line: 34,
    });
  });

  it('reads the 2023-03-28 table (25 rows, numerically sorted)', () => {
    const r = parse(realText('birdnet-analyzer_ccf4b228_2023-03-28', TABLE), { fileName: TABLE, labels: englishLabels() });
    expect(r.errors).toEqual([]);
    expect(r.detections).toHaveLength(25);
    expect(r.detections[0]).toMatchObject({ startSec: 0, endSec: 3, scientificName: 'Poecile atricapillus', confidence: 0.6618 });
    expect(r.detections[7]).toMatchObject({ scientificName: 'Haliaeetus leucocephalus', commonName: 'Bald Eagle', confidence: 0.1003 });
    expect(r.detections[24]).toEqual({
      startSec: 117, endSec: 120, scientificName: 'Spinus tristis', commonName: 'American Goldfinch', confidence: 0.1954, line: 26,
    });
  });

  it('resolves the German (--locale de) table with the German labels and uploads English names', () => {
    const text = realText('birdnet-analyzer_f4e56a1b_2022-07-23_locale-de', TABLE);
    const r = parse(text, { fileName: TABLE, labels: englishWithGermanLabels() });
    expect(r.errors).toEqual([]);
    expect(r.detections).toHaveLength(33);
    expect(r.detections[0]).toEqual({
      startSec: 0, endSec: 3, scientificName: 'Poecile atricapillus', commonName: 'Black-capped Chickadee', confidence: 0.4102, line: 2,
    });
    expect(r.detections[1]).toMatchObject({ scientificName: 'Baeolophus bicolor', commonName: 'Tufted Titmouse' });
    expect(new Set(r.detections.map((d) => d.scientificName))).toEqual(
      new Set(['Poecile atricapillus', 'Baeolophus bicolor', 'Haemorhous purpureus', 'Spinus tristis', 'Haemorhous mexicanus',
        'Cyanocitta cristata', 'Junco hyemalis', 'Spizelloides arborea']),
    );

    // Without the German labels every row is a clear per-row error, not a crash.
    const withoutGerman = parse(text, { fileName: TABLE, labels: englishLabels() });
    expect(withoutGerman.detections).toEqual([]);
    expect(withoutGerman.errors).toHaveLength(33);
    expect(withoutGerman.errors[0]).toEqual({
      line: 2,
      message: `${TABLE} line 2, column "Common Name": common name "Schwarzkopfmeise" is not in the labels file(s)`,
    });
  });

  it('without any labels, a common-name-only table yields one error per row', () => {
    const r = parse(realText('birdnet-analyzer_ea464544_2022-03-02', TABLE), { fileName: TABLE });
    expect(r.detections).toEqual([]);
    expect(r.errors.map((e) => e.line)).toEqual([2, 3]);
    expect(r.errors[0].message).toMatch(/no labels file is configured/);
  });

  it('maps the newer column order (Begin Path early, Scientific Name column) by name', () => {
    const r = parse(own('newer-order.BirdNET.selection.table.txt'), { fileName: 'newer-order.BirdNET.selection.table.txt' });
    expect(r.errors).toEqual([]);
    expect(r.audioFileName).toBe('20240501_060000.WAV');
    expect(r.detections).toEqual([
      { startSec: 0, endSec: 3, scientificName: 'Turdus merula', commonName: 'Eurasian Blackbird', confidence: 0.9182, line: 2 },
      { startSec: 3, endSec: 6, scientificName: 'Parus major', commonName: 'Great Tit', confidence: 0.4501, line: 3 },
      { startSec: 57, endSec: 60, scientificName: 'Phylloscopus collybita', commonName: 'Common Chiffchaff', confidence: 0.1, line: 4 },
    ]);
  });

  it('uses File Offset when a combined table counts Begin Time across files', () => {
    const text =
      'Selection\tBegin Time (s)\tEnd Time (s)\tCommon Name\tScientific Name\tConfidence\tBegin Path\tFile Offset (s)\n' +
      '1\t123.0\t126.0\tGreat Tit\tParus major\t0.5\t/a/b.wav\t3.0\n';
    expect(parse(text, { fileName: 't.txt' }).detections[0]).toMatchObject({ startSec: 3, endSec: 6 });
  });

  it('treats the nocall dummy row as zero detections without an error', () => {
    const r = parse(own('nocall.BirdNET.selection.table.txt'), { fileName: 'nocall.txt' });
    expect(r).toEqual({ format: 'raven', detections: [], errors: [], audioFileName: 'silence.wav' });
  });

  it('accepts a BOM, CRLF and blank lines', () => {
    const r = parse(own('bom-crlf.BirdNET.selection.table.txt'), { fileName: 'bom.txt', labels: englishLabels() });
    expect(r.errors).toEqual([]);
    expect(r.detections.map((d) => [d.line, d.scientificName, d.confidence])).toEqual([
      [2, 'Phylloscopus collybita', 0.17441706],
      [4, 'Parus major', 0.5],
    ]);
  });

  it('reports garbage rows with line and column and keeps the good rows', () => {
    const name = 'garbage.BirdNET.selection.table.txt';
    const r = parse(own(name), { fileName: name, labels: englishLabels() });
    expect(r.detections.map((d) => d.line)).toEqual([2, 8]);
    expect(r.errors).toEqual([
      { line: 3, message: `${name} line 3, column "Begin Time (s)": expected a number, found "abc"` },
      { line: 4, message: `${name} line 4, column "Confidence": confidence must be in [0, 1], found 1.7` },
      { line: 5, message: `${name} line 5, column "End Time (s)": end 9 is before start 12` },
      { line: 6, message: `${name} line 6, column "Common Name": common name "No Such Bird" is not in the labels file(s)` },
      { line: 7, message: `${name} line 7, row: expected 10 fields as in the header, found 1` },
    ]);
  });

  it('rejects a comma-separated file with a clear file-level error', () => {
    const name = 'wrong-delimiter.BirdNET.selection.table.txt';
    let caught: unknown;
    try {
      parse(own(name), { fileName: name });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ResultFileError);
    const err = caught as ResultFileError;
    expect(err.code).toBe('ERR_RESULT_FILE');
    expect(err.fileName).toBe(name);
    expect(err.message).toBe(
      `${name}: expected tab-separated Raven selection table header with columns "Begin Time (s)", "End Time (s)", "Confidence", ` +
        `"Common Name" or "Scientific Name", found "Selection,View,Channel,Begin Time (s),End Time (s),Low Freq (Hz),High Freq (Hz),Species Code,Common Name,Confidence" ` +
        '(the header looks comma-separated)',
    );
  });

  it('rejects an empty file', () => {
    expect(() => parse('\n\n', { fileName: 'e.txt' })).toThrow('e.txt: empty file: expected a tab-separated Raven selection table header');
  });
});
