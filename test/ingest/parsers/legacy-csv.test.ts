import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from '../../../src/ingest/parsers/legacy-csv.js';
import { fixture } from '../../helpers/paths.js';

const own = (name: string) => readFileSync(fixture('results', name), 'utf8');

describe('legacy semicolon CSV parser', () => {
  it('reads semicolon-separated rows, quoted names and reports a decimal comma', () => {
    const r = parse(own('legacy.wav.csv'), { fileName: 'legacy.wav.csv' });
    expect(r.format).toBe('legacy-csv');
    expect(r.detections).toEqual([
      { startSec: 0, endSec: 3, scientificName: 'Turdus merula', commonName: 'Eurasian Blackbird', confidence: 0.9182, line: 2 },
      { startSec: 3, endSec: 6, scientificName: 'Parus major', commonName: 'Great Tit', confidence: 0.4501, line: 3 },
      { startSec: 6, endSec: 9, scientificName: 'Ardea cinerea', commonName: 'Grey Heron; Common', confidence: 0.1234, line: 4 },
    ]);
    expect(r.errors).toEqual([
      { line: 5, message: 'legacy.wav.csv line 5, column "Confidence": expected a number, found "0,5"' },
    ]);
  });

  it('rejects a comma-separated file under the legacy name', () => {
    expect(() => parse(own('wrong-delimiter.wav.csv'), { fileName: 'w.wav.csv' })).toThrow(
      'w.wav.csv: expected semicolon-separated legacy results header with columns "Start (s)", "End (s)", "Confidence", ' +
        '"Scientific name" or "Common name", found "Start (s),End (s),Scientific name,Common name,Confidence" (the header looks comma-separated)',
    );
  });
});
