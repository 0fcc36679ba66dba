import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ANALYZERPI_SEGMENT_SEC, parse } from '../../../src/ingest/parsers/analyzerpi-json.js';
import { fixture } from '../../helpers/paths.js';
import { englishLabels, englishWithGermanLabels } from '../real-labels.js';

// The fixtures' names avoid ':' (not allowed in Windows checkouts); the names the analyzerpi gives are passed as fileName.
const own = (name: string) => readFileSync(fixture('results', name), 'utf8');
const MAGPIE = '2024-02-24-birdnet-16:19:37.wav.json';
const RTSP = '2024-05-01-birdnet-RTSP_1-06:00:00.wav.json';
const MAGPIE_FIXTURE = 'analyzerpi-magpie.wav.json';
const RTSP_FIXTURE = 'analyzerpi-rtsp-de.wav.json';

describe('analyzerpi JSON parser', () => {
  it('reads timestamp, the WAV name and common-name detections, resolved through the labels, end = start + 3 s', () => {
    const r = parse(own(MAGPIE_FIXTURE), { fileName: MAGPIE, labels: englishLabels() });
    expect(ANALYZERPI_SEGMENT_SEC).toBe(3);
    expect(r).toEqual({
      format: 'analyzerpi-json',
      recordingStart: '2024-02-24T16:19:37+01:00',
      audioFileName: '2024-02-24-birdnet-16:19:37.wav',
      errors: [],
      detections: [
        { startSec: 0, endSec: 3, scientificName: 'Pica pica', commonName: 'Eurasian Magpie', confidence: 0.912, line: 1 },
        { startSec: 9, endSec: 12, scientificName: 'Pica pica', commonName: 'Eurasian Magpie', confidence: 0.9316, line: 1 },
        { startSec: 18, endSec: 21, scientificName: 'Pica pica', commonName: 'Eurasian Magpie', confidence: 0.8857, line: 1 },
      ],
    });
  });

  it('resolves German common names with the localised labels, tolerates extra fields, reports bad entries', () => {
    const r = parse(own(RTSP_FIXTURE), { fileName: RTSP, labels: englishWithGermanLabels() });
    expect(r.recordingStart).toBe('2024-05-01T06:00:00.123456+02:00');
    expect(r.audioFileName).toBe('2024-05-01-birdnet-RTSP_1-06:00:00.wav');
    expect(r.detections).toEqual([
      { startSec: 0, endSec: 3, scientificName: 'Pica pica', commonName: 'Eurasian Magpie', confidence: 0.7, line: 1 },
    ]);
    expect(r.errors).toEqual([
      { line: 1, message: `${RTSP} line 1, detections[1].confidence: must be a number (got a string)` },
      { line: 1, message: `${RTSP} line 1, detections[2].common_name: common name "Nonexistent" is not in the labels file(s)` },
    ]);
  });

  it('without labels every detection is a clear error', () => {
    const r = parse(own(MAGPIE_FIXTURE), { fileName: MAGPIE });
    expect(r.detections).toEqual([]);
    expect(r.errors).toHaveLength(3);
    expect(r.errors[0].message).toBe(
      `${MAGPIE} line 1, detections[0].common_name: only the common name "Eurasian Magpie" is given and no labels file is configured to find its scientific name`,
    );
  });

  it('rejects a wrong document shape and non-JSON', () => {
    expect(() => parse('{"timestamp": "2024-02-24 16:19:37", "detections": []}', { fileName: 'x.wav.json' })).toThrow(
      'x.wav.json: not a valid analyzerpi result: timestamp: must be an ISO 8601 date-time with an offset',
    );
    expect(() => parse('{"file_name": "x.wav.json"}', { fileName: 'x.wav.json' })).toThrow(
      'x.wav.json: not a valid analyzerpi result: detections: must be an array (got nothing)',
    );
    expect(() => parse('', { fileName: 'x.wav.json' })).toThrow(/^x\.wav\.json: expected an analyzerpi result \(JSON\), but it is not valid JSON/);
  });
});
