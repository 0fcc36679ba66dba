import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ResultFileError } from '../../../src/ingest/errors.js';
import { arrayElementLines } from '../../../src/ingest/parsers/json-lines.js';
import { parse } from '../../../src/ingest/parsers/sidecar.js';
import { fixture } from '../../helpers/paths.js';
import { englishLabels } from '../real-labels.js';

const own = (name: string) => readFileSync(fixture('results', name), 'utf8');
const NAME = '2024-05-01T06-00-00.detections.json';

describe('JSON sidecar parser', () => {
  it('reads recordingStart, audioFile and valid detections; each bad entry is a row error with JSON path and line', () => {
    const r = parse(own(NAME), { fileName: NAME, labels: englishLabels() });
    expect(r.format).toBe('sidecar');
    expect(r.recordingStart).toBe('2024-05-01T06:00:00.000+02:00');
    expect(r.audioFileName).toBe('2024-05-01T06-00-00.flac');
    expect(r.detections).toEqual([
      { startSec: 0, endSec: 3, scientificName: 'Turdus merula', commonName: 'Eurasian Blackbird', confidence: 0.8, line: 6 },
      { startSec: 3, endSec: 6, scientificName: 'Parus major', commonName: 'Great Tit', confidence: 0.17441706, line: 7 },
      { startSec: 12, endSec: 15, scientificName: 'Phylloscopus collybita', commonName: 'Common Chiffchaff', confidence: 0.61, line: 16 },
    ]);
    expect(r.errors).toEqual([
      { line: 8, message: `${NAME} line 8, detections[2].confidence: must be at most 1` },
      { line: 8, message: `${NAME} line 8, detections[2].end: end must not be before start` },
      { line: 15, message: `${NAME} line 15, detections[3].start: must be a number (got a string)` },
      { line: 15, message: `${NAME} line 15, detections[3].commonName: must not be empty` },
      { line: 17, message: `${NAME} line 17, detections[5].commonName: common name "No Such Bird" is not in the labels file(s)` },
    ]);
  });

  it('accepts a BOM and CRLF and an empty detections list', () => {
    expect(parse(own('empty.detections.json'), { fileName: 'e.json' })).toEqual({ format: 'sidecar', detections: [], errors: [] });
  });

  it('rejects a document of the wrong shape naming each JSON path', () => {
    expect(() => parse(own('bad-shape.detections.json'), { fileName: 'b.json' })).toThrow(
      'b.json: not a valid detections sidecar: recordingStart: must be an ISO 8601 date-time with an offset; ' +
        'detections: must be an array (got an object)',
    );
    expect(() => parse('[]', { fileName: 'a.json' })).toThrow('a.json: not a valid detections sidecar: (root): must be an object (got an array)');
  });

  it('rejects text that is not JSON with a ResultFileError', () => {
    let caught: unknown;
    try {
      parse(own('not-json.detections.json'), { fileName: 'n.json' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ResultFileError);
    expect((caught as ResultFileError).code).toBe('ERR_RESULT_FILE');
    expect((caught as ResultFileError).message).toMatch(/^n\.json: expected a detections sidecar \(JSON\), but it is not valid JSON: /);
  });
});

describe('arrayElementLines', () => {
  it('finds the line of each element of a top-level array, ignoring nested and same-named keys', () => {
    const text = '{\n "other": {"detections": [1, 2]},\n "name": "a \\" detections",\n "detections": [\n  {"a": [1,\n 2]},\n  "x", 3,\n  [4]\n ]\n}';
    expect(arrayElementLines(text, 'detections')).toEqual([5, 7, 7, 8]);
    expect(arrayElementLines('{"detections":[{"start":0},{"start":3}]}', 'detections')).toEqual([1, 1]);
  });
});
