import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from '../../../src/ingest/parsers/kaleidoscope.js';
import { fixture } from '../../helpers/paths.js';

const NAME = '20240501_060000.BirdNET.results.kaleidoscope.csv';

describe('Kaleidoscope CSV parser', () => {
  it('reads OFFSET as start and OFFSET + DURATION as end, IN FILE as the audio file', () => {
    const r = parse(readFileSync(fixture('results', NAME), 'utf8'), { fileName: NAME });
    expect(r.format).toBe('kaleidoscope');
    expect(r.audioFileName).toBe('20240501_060000.WAV');
    expect(r.detections).toEqual([
      { startSec: 0, endSec: 3, scientificName: 'Turdus merula', commonName: 'Eurasian Blackbird', confidence: 0.9182, line: 2 },
      { startSec: 1.5, endSec: 4.5, scientificName: 'Parus major', commonName: 'Great Tit', confidence: 0.4501, line: 3 },
      { startSec: 6, endSec: 9, scientificName: 'Ardea cinerea', commonName: 'Grey Heron, Common', confidence: 0.1234, line: 4 },
    ]);
    expect(r.errors).toEqual([{ line: 5, message: `${NAME} line 5, column "DURATION": end 6 is before start 9` }]);
  });

  it('rejects a CSV results header under the Kaleidoscope suffix', () => {
    expect(() => parse('Start (s),End (s),Scientific name,Common name,Confidence\n', { fileName: 'k.csv' })).toThrow(
      /^k\.csv: expected comma-separated Kaleidoscope CSV header with columns "OFFSET", "DURATION", "confidence", "scientific_name" or "common_name", found "Start \(s\),End/,
    );
  });
});
