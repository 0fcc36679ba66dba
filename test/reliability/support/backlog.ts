import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildWav } from '../../helpers/wav-writer.js';

/**
 * A generated backlog of the analyzer's output: `rec-NNNN.wav` (16 kHz mono) with a
 * `rec-NNNN.detections.json` sidecar each, and the oracle of what the service must
 * hold once the agent has uploaded it: one soundscape per recording, one detection
 * per row, compared by instant and scientific name.
 */

/** Species of the real labels file (and so of the local service's catalog). */
export const SPECIES: readonly (readonly [scientific: string, common: string])[] = [
  ['Turdus merula', 'Eurasian Blackbird'],
  ['Parus major', 'Great Tit'],
  ['Erithacus rubecula', 'European Robin'],
  ['Fringilla coelebs', 'Common Chaffinch'],
  ['Pica pica', 'Eurasian Magpie'],
  ['Cyanistes caeruleus', 'Eurasian Blue Tit'],
  ['Sylvia atricapilla', 'Eurasian Blackcap'],
  ['Phylloscopus collybita', 'Common Chiffchaff'],
  ['Troglodytes troglodytes', 'Eurasian Wren'],
  ['Columba palumbus', 'Common Wood-Pigeon'],
];

export const SAMPLE_RATE = 16_000;

export interface ExpectedDetection {
  /** The instant the service must show (recording start + row start). */
  timestampMs: number;
  scientificName: string;
  commonName: string;
  startS: number;
  endS: number;
  confidence: number;
}

export interface ExpectedRecording {
  /** Base name: `<base>.wav` and `<base>.detections.json`. */
  base: string;
  startMs: number;
  durationS: number;
  detections: ExpectedDetection[];
}

export interface BacklogOptions {
  count: number;
  /** Index of the first recording (names and start times follow it). Default 0. */
  firstIndex?: number;
  /** Start of recording 0 (epoch ms, whole seconds). */
  startMs: number;
  /** Default 6 (at least 3 s per detection). */
  durationS?: number;
  /** Detections per recording, at 0, 3, 6, ... s. Default 3. */
  detectionsPerRecording?: number;
  random: () => number;
}

const wavCache = new Map<number, Buffer>();

/** A valid WAV of `durationS` seconds (one buffer per duration, shared: the content does not matter). */
export function wavBytes(durationS: number): Buffer {
  let bytes = wavCache.get(durationS);
  if (!bytes) {
    bytes = buildWav({ format: 'pcm16', channels: 1, sampleRate: SAMPLE_RATE, frames: durationS * SAMPLE_RATE }).bytes;
    wavCache.set(durationS, bytes);
  }
  return bytes;
}

/** Writes a file the way the sidecar spec asks: under a hidden name, then renamed into place. */
export function writeAtomically(file: string, data: string | Buffer): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

export function sidecar(rec: ExpectedRecording, extra: Record<string, unknown>[] = []): string {
  return JSON.stringify({
    analyzer: 'reliability-test',
    recordingStart: new Date(rec.startMs).toISOString(),
    detections: [
      ...rec.detections.map((d) => ({
        start: d.startS,
        end: d.endS,
        scientificName: d.scientificName,
        commonName: d.commonName,
        confidence: d.confidence,
      })),
      ...extra,
    ],
  });
}

/** Plans `count` recordings (nothing written). Recordings are a minute apart. */
export function planBacklog(o: BacklogOptions): ExpectedRecording[] {
  const per = o.detectionsPerRecording ?? 3;
  // One 3 s analysis segment per detection, so no two detections share an instant.
  const durationS = Math.max(o.durationS ?? 6, per * 3);
  const first = o.firstIndex ?? 0;
  const out: ExpectedRecording[] = [];
  for (let i = first; i < first + o.count; i++) {
    const startMs = o.startMs + i * 60_000;
    const detections: ExpectedDetection[] = [];
    for (let j = 0; j < per; j++) {
      const [scientificName, commonName] = SPECIES[Math.floor(o.random() * SPECIES.length)];
      detections.push({
        timestampMs: startMs + j * 3_000,
        scientificName,
        commonName,
        startS: j * 3,
        endS: j * 3 + 3,
        confidence: Math.round((0.5 + o.random() * 0.49) * 10_000) / 10_000,
      });
    }
    out.push({ base: `rec-${String(i).padStart(4, '0')}`, startMs, durationS, detections });
  }
  return out;
}

/** Writes each recording's WAV, then its sidecar (the result file last, as an analyzer does). */
export function writeBacklog(dir: string, recordings: readonly ExpectedRecording[]): void {
  for (const rec of recordings) {
    writeAtomically(path.join(dir, `${rec.base}.wav`), wavBytes(rec.durationS));
    writeAtomically(path.join(dir, `${rec.base}.detections.json`), sidecar(rec));
  }
}

/** A start time the agent finds plausible: whole seconds, `daysAgo` days back. */
export function startDaysAgo(daysAgo: number): number {
  return Math.floor((Date.now() - daysAgo * 86_400_000) / 1000) * 1000;
}
