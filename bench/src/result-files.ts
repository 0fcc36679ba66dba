import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { SPECIES } from './workload.js';

/**
 * Analyzer result files for the ingest and latency figures: the analyzer's CSV
 * (`<base>.BirdNET.results.csv`, v2.x header) named like an AudioMoth recording
 * (`YYYYMMDD_HHMMSS`, UTC), so the recording's start comes from the name.
 */
export function recordingBaseName(startMs: number): string {
  const iso = new Date(startMs).toISOString(); // 2024-05-01T06:00:00.000Z
  return `${iso.slice(0, 10).replaceAll('-', '')}_${iso.slice(11, 19).replaceAll(':', '')}`;
}

/** The CSV text of `rows` detections, 3 s apart, species cycling through the catalog. */
export function resultCsv(base: string, rows: number, seed = 0): string {
  const lines = ['Start (s),End (s),Scientific name,Common name,Confidence,File'];
  for (let k = 0; k < rows; k++) {
    const [scientific, common] = SPECIES[(seed + k) % SPECIES.length];
    const start = k * 3;
    const confidence = (0.5 + ((seed * 7 + k * 13) % 50) / 100).toFixed(4);
    lines.push(`${start.toFixed(1)},${(start + 3).toFixed(1)},${scientific},${common},${confidence},/data/${base}.wav`);
  }
  return `${lines.join('\n')}\n`;
}

/** Writes `<dir>/<base>.BirdNET.results.csv`; returns its path. */
export function writeResultCsv(dir: string, base: string, rows: number, seed = 0): string {
  const file = path.join(dir, `${base}.BirdNET.results.csv`);
  writeFileSync(file, resultCsv(base, rows, seed));
  return file;
}

/** The Raven selection table (`<base>.BirdNET.selection.table.txt`) of `rows` detections, 3 s apart. */
export function ravenTable(rows: number, seed = 0): string {
  const lines = ['Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tCommon Name\tScientific Name\tConfidence'];
  for (let k = 0; k < rows; k++) {
    const [scientific, common] = SPECIES[(seed + k) % SPECIES.length];
    const confidence = (0.5 + ((seed * 7 + k * 13) % 50) / 100).toFixed(4);
    lines.push(`${k + 1}\tSpectrogram 1\t1\t${k * 3}\t${k * 3 + 3}\t150\t12000\t${common}\t${scientific}\t${confidence}`);
  }
  return `${lines.join('\n')}\n`;
}
