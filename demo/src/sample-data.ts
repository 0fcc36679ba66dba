import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { DateTime } from 'luxon';
import type { PlannedRecording, SampleDetection, SamplePlan } from './sample-plan.js';
import { synthesizeSoundscape, wavFile, type PlacedCall } from './synth-wav.js';

/**
 * Writes the demo's sample analyzer output folder: for each planned recording a
 * synthesised WAV and its result file, in the file names and layouts the real
 * analyzers write (see src/ingest/formats.ts and docs/SIDECAR.md):
 *
 * | format | audio | result |
 * |---|---|---|
 * | analyzerpi | `2025-05-01-birdnet-06:00:00.wav` | `<audio>.json` (common names, `timestamp` with offset) |
 * | raven | `garden_20250501T060000.wav` | `<base>.BirdNET.selection.table.txt` (analyzer v2.4 columns, common names) |
 * | csv | `SMA01234_20250501_060000.wav` (Song Meter) | `<base>.BirdNET.results.csv` |
 * | sidecar | `2025-05-01T06-00-00.wav` | `<base>.detections.json` (`recordingStart` with offset) |
 *
 * Times in names are the station's local time. Each file is written under a hidden
 * name and renamed into place, audio before its result, as a careful analyzer does.
 */

/** The labels of the sample species (`Scientific name_Common name`, `demo/assets/demo-labels.txt`), found from src/ or dist/. */
export const DEMO_LABELS_FILE = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@station-agent/demo/package.json')),
  'assets/demo-labels.txt',
);

export interface SampleFile {
  format: PlannedRecording['format'];
  audioFile: string;
  resultFile: string;
  startMs: number;
}

/** File names of one planned recording. */
export function sampleFileNames(rec: PlannedRecording, zone: string): { audio: string; result: string } {
  const t = DateTime.fromMillis(rec.startMs, { zone });
  switch (rec.format) {
    case 'analyzerpi': {
      const audio = `${t.toFormat('yyyy-MM-dd')}-birdnet-${t.toFormat('HH:mm:ss')}.wav`;
      return { audio, result: `${audio}.json` };
    }
    case 'raven': {
      const base = `garden_${t.toFormat("yyyyMMdd'T'HHmmss")}`;
      return { audio: `${base}.wav`, result: `${base}.BirdNET.selection.table.txt` };
    }
    case 'csv': {
      const base = `SMA01234_${t.toFormat('yyyyMMdd_HHmmss')}`;
      return { audio: `${base}.wav`, result: `${base}.BirdNET.results.csv` };
    }
    case 'sidecar': {
      const base = t.toFormat("yyyy-MM-dd'T'HH-mm-ss");
      return { audio: `${base}.wav`, result: `${base}.detections.json` };
    }
  }
}

/** The result file's text for one recording; `audioPath` is where its audio is (Raven's Begin Path, the CSV's File). */
export function resultFileText(rec: PlannedRecording, zone: string, audioPath: string): string {
  const t = DateTime.fromMillis(rec.startMs, { zone });
  const { audio, result } = sampleFileNames(rec, zone);
  switch (rec.format) {
    case 'analyzerpi':
      return `${JSON.stringify({
        file_name: result,
        timestamp: t.toISO({ suppressMilliseconds: true }),
        delay: 15,
        detections: rec.detections.map((d) => ({ start: d.startSec, common_name: d.species.commonName, confidence: d.confidence })),
      })}\n`;
    case 'raven': {
      const header = [
        'Selection', 'View', 'Channel', 'Begin Time (s)', 'End Time (s)', 'Low Freq (Hz)', 'High Freq (Hz)',
        'Common Name', 'Species Code', 'Confidence', 'Begin Path', 'File Offset (s)',
      ];
      const rows = rec.detections.map((d, i) =>
        [i + 1, 'Spectrogram 1', 1, d.startSec.toFixed(1), d.endSec.toFixed(1), 0, 15000, d.species.commonName, d.species.code, d.confidence.toFixed(4), audioPath, d.startSec.toFixed(1)].join('\t'),
      );
      return `${[header.join('\t'), ...rows].join('\n')}\n`;
    }
    case 'csv': {
      const rows = rec.detections.map((d) =>
        [d.startSec.toFixed(1), d.endSec.toFixed(1), d.species.scientificName, d.species.commonName, d.confidence.toFixed(4), csvField(audioPath)].join(','),
      );
      return `${['Start (s),End (s),Scientific name,Common name,Confidence,File', ...rows].join('\n')}\n`;
    }
    case 'sidecar':
      return `${JSON.stringify(
        {
          analyzer: 'station-agent demo',
          recordingStart: t.toISO(),
          audioFile: audio,
          detections: rec.detections.map((d) => ({
            start: d.startSec,
            end: d.endSec,
            scientificName: d.species.scientificName,
            commonName: d.species.commonName,
            confidence: d.confidence,
          })),
        },
        null,
        2,
      )}\n`;
  }
}

/** The recording's audio: each detection's call inside its 3 s segment. */
export function sampleAudio(rec: PlannedRecording, plan: Pick<SamplePlan, 'durationSec' | 'sampleRate'>, seed: number): Buffer {
  const calls: PlacedCall[] = rec.detections.map((d: SampleDetection) => ({
    atSec: d.startSec + 0.3,
    shape: d.species.call,
    level: 0.15 + 0.5 * d.confidence,
  }));
  const samples = synthesizeSoundscape(calls, { durationSec: plan.durationSec, sampleRate: plan.sampleRate, seed });
  return wavFile(samples, plan.sampleRate);
}

/** Writes every planned recording into `dir` (created if needed); returns what was written, in order. */
export async function writeSampleFolder(dir: string, plan: SamplePlan): Promise<SampleFile[]> {
  await mkdir(dir, { recursive: true });
  const written: SampleFile[] = [];
  for (const [i, rec] of plan.recordings.entries()) {
    const names = sampleFileNames(rec, plan.zone);
    const audioPath = path.join(dir, names.audio);
    await writeAtomically(audioPath, sampleAudio(rec, plan, i + 1));
    await writeAtomically(path.join(dir, names.result), resultFileText(rec, plan.zone, audioPath));
    written.push({ format: rec.format, audioFile: names.audio, resultFile: names.result, startMs: rec.startMs });
  }
  return written;
}

async function writeAtomically(file: string, content: string | Buffer): Promise<void> {
  // A leading dot: the watcher ignores the file until it has its real name.
  const partial = path.join(path.dirname(file), `.${path.basename(file)}.part`);
  await writeFile(partial, content);
  await rename(partial, file);
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
