import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ResultFileError } from '../../src/ingest/errors.js';
import { classifyPath, detectFormat, parseResultFile, sniffFormat } from '../../src/ingest/formats.js';
import { fixture, realFixture } from '../helpers/paths.js';
import { englishLabels, englishWithGermanLabels } from './real-labels.js';

const pairKey = (file: string) => {
  const c = classifyPath(file);
  return c.kind === 'ignored' ? undefined : c.baseName;
};

describe('classifyPath', () => {
  it.each([
    ['/in/soundscape.wav', { kind: 'audio', ext: 'wav', baseName: 'soundscape' }],
    ['/in/20240501_060000.WAV', { kind: 'audio', ext: 'wav', baseName: '20240501_060000' }],
    ['/in/rec.flac', { kind: 'audio', ext: 'flac', baseName: 'rec' }],
    ['/in/2024-02-24-birdnet-16:19:37.wav', { kind: 'audio', ext: 'wav', baseName: '2024-02-24-birdnet-16:19:37' }],
    ['/out/soundscape.BirdNET.selection.table.txt', { kind: 'result', format: 'raven', baseName: 'soundscape' }],
    ['/out/soundscape.BirdNET.results.csv', { kind: 'result', format: 'csv', baseName: 'soundscape' }],
    ['/out/soundscape.BirdNET.results.r.csv', { kind: 'result', format: 'csv', baseName: 'soundscape' }],
    ['/out/soundscape.BirdNET.results.txt', { kind: 'result', format: 'audacity', baseName: 'soundscape' }],
    ['/out/soundscape.BirdNET.results.kaleidoscope.csv', { kind: 'result', format: 'kaleidoscope', baseName: 'soundscape' }],
    ['/out/soundscape.birdnet.RESULTS.csv', { kind: 'result', format: 'csv', baseName: 'soundscape' }],
    ['/in/rec.detections.json', { kind: 'result', format: 'sidecar', baseName: 'rec' }],
    ['/in/foo.wav.csv', { kind: 'result', format: 'legacy-csv', baseName: 'foo', audioFileName: 'foo.wav' }],
    [
      '/in/2024-02-24-birdnet-16:19:37.wav.json',
      { kind: 'analyzerpi-json', audioFileName: '2024-02-24-birdnet-16:19:37.wav', baseName: '2024-02-24-birdnet-16:19:37' },
    ],
    [
      '/in/2024-02-24-birdnet-RTSP_1-16:19:37.wav.json',
      { kind: 'analyzerpi-json', audioFileName: '2024-02-24-birdnet-RTSP_1-16:19:37.wav', baseName: '2024-02-24-birdnet-RTSP_1-16:19:37' },
    ],
  ])('%s', (p, expected) => {
    expect(classifyPath(p)).toEqual(expected);
  });

  it.each([
    '/in/notes.txt',
    '/in/analysis.csv',
    '/in/rec.wav.png',
    '/in/.rec.wav',
    '/in/rec.wav~',
    '/in/rec.wav.part',
    '/in/soundscape.BirdNET.results.csv.tmp',
    '/out/BirdNET_SelectionTable.txt',
    '/out/BirdNET_CombinedTable.csv',
    '/in/.BirdNET.results.csv',
    '/in/rec.mp3',
  ])('ignores %s', (p) => {
    expect(classifyPath(p)).toEqual({ kind: 'ignored' });
  });

  it('gives audio and result files the same pair key', () => {
    expect(pairKey('soundscape.wav')).toBe(pairKey('/x/soundscape.BirdNET.selection.table.txt'));
    expect(pairKey('x.wav')).toBe(pairKey('x.wav.csv'));
    expect(pairKey('x.wav')).toBe(pairKey('x.wav.json'));
    expect(pairKey('rec.flac')).toBe(pairKey('rec.detections.json'));
    expect(pairKey('14_01_20210213_210000.WAV')).toBe('14_01_20210213_210000');
    expect(pairKey('notes.txt')).toBeUndefined();
  });
});

describe('detectFormat and sniffFormat', () => {
  const rtype = readFileSync(realFixture('birdnet-analyzer_6e477a19_2022-03-17', 'soundscape.BirdNET.results.csv'), 'utf8');
  const legacy = readFileSync(fixture('results', 'legacy.wav.csv'), 'utf8');
  const kaleidoscope = readFileSync(fixture('results', '20240501_060000.BirdNET.results.kaleidoscope.csv'), 'utf8');

  it('goes by suffix, and by header for CSV files', () => {
    expect(detectFormat('a.BirdNET.selection.table.txt')).toBe('raven');
    expect(detectFormat('a.wav.json')).toBe('analyzerpi-json');
    expect(detectFormat('a.BirdNET.results.csv', rtype)).toBe('csv');
    expect(detectFormat('a.BirdNET.results.csv', kaleidoscope)).toBe('kaleidoscope');
    expect(detectFormat('a.wav.csv', legacy)).toBe('legacy-csv');
    expect(detectFormat('a.wav.csv', 'Start (s),End (s),Scientific name,Common name,Confidence\n')).toBe('csv');
    expect(detectFormat('exported.csv', kaleidoscope)).toBe('kaleidoscope');
    expect(detectFormat('a.wav.csv', 'something else\n')).toBe('legacy-csv');
    expect(detectFormat('notes.txt')).toBeUndefined();
    expect(detectFormat('exported.csv', 'x,y\n')).toBeUndefined();
  });

  it('sniffs every header family', () => {
    expect(sniffFormat('\uFEFFStart (s),End (s),Scientific name,;Common name,Confidence\r\n')).toBe('csv');
    expect(sniffFormat('Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tConfidence\n')).toBe('raven');
    expect(sniffFormat('\n\n')).toBeUndefined();
  });
});

describe('parseResultFile', () => {
  it('parses every real result file through the one entry point', () => {
    const files: [string, string, number][] = [
      ['birdnet-analyzer_ea464544_2022-03-02/soundscape.BirdNET.selection.table.txt', 'raven', 2],
      ['birdnet-analyzer_ea464544_2022-03-02/soundscape.BirdNET.results.txt', 'audacity', 5],
      ['birdnet-analyzer_ea464544_2022-03-02/soundscape.BirdNET.results.csv', 'csv', 5],
      ['birdnet-analyzer_6e477a19_2022-03-17/soundscape.BirdNET.selection.table.txt', 'raven', 33],
      ['birdnet-analyzer_6e477a19_2022-03-17/soundscape.BirdNET.results.txt', 'audacity', 33],
      ['birdnet-analyzer_6e477a19_2022-03-17/soundscape.BirdNET.results.csv', 'csv', 33],
      ['birdnet-analyzer_f4e56a1b_2022-07-23_locale-de/soundscape.BirdNET.selection.table.txt', 'raven', 33],
      ['birdnet-analyzer_ccf4b228_2023-03-28/soundscape.BirdNET.selection.table.txt', 'raven', 25],
      ['birdnetTools/test_example_1.csv', 'csv', 73],
    ];
    for (const [rel, format, count] of files) {
      const p = realFixture(rel);
      const r = parseResultFile(p, readFileSync(p, 'utf8'), { labels: englishWithGermanLabels() });
      expect({ rel, format: r.format, count: r.detections.length, errors: r.errors }).toEqual({ rel, format, count, errors: [] });
    }
  });

  it('names the audio file from the result file name when the content does not', () => {
    const r = parseResultFile('/in/legacy.wav.csv', readFileSync(fixture('results', 'legacy.wav.csv'), 'utf8'));
    expect(r.format).toBe('legacy-csv');
    expect(r.audioFileName).toBe('legacy.wav');
    const j = parseResultFile('/in/x.wav.json', '{"timestamp":"2024-02-24T16:19:37+01:00","detections":[]}', { labels: englishLabels() });
    expect(j).toEqual({ format: 'analyzerpi-json', recordingStart: '2024-02-24T16:19:37+01:00', audioFileName: 'x.wav', detections: [], errors: [] });
  });

  it('honours a fixed format and rejects unknown files with ResultFileError', () => {
    const text = readFileSync(fixture('results', 'legacy.wav.csv'), 'utf8');
    expect(parseResultFile('/in/whatever.txt', text, { format: 'legacy-csv' }).detections).toHaveLength(3);
    expect(() => parseResultFile('/in/notes.txt', 'hello')).toThrow(ResultFileError);
    expect(() => parseResultFile('/in/notes.txt', 'hello')).toThrow('/in/notes.txt: not a recognised result file (unknown name suffix and header)');
  });
});
