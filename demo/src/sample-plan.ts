import { DateTime } from 'luxon';
import type { CallShape } from './synth-wav.js';

/**
 * What the demo's sample folder holds: six short soundscapes from this morning of a
 * garden station, each with the result file of a different real format, and the
 * detections in them. Pure data and arithmetic; `sample-data.ts` writes the files.
 *
 * Every species is in the emulator's default catalog (`emulator/assets/default-species.txt`)
 * and in `demo/assets/demo-labels.txt` (the labels the analyzerpi JSON and the Raven
 * table, which name species by common name only, are resolved with).
 */
export interface SampleSpecies {
  scientificName: string;
  commonName: string;
  /** A short code for the Raven table's Species Code column. */
  code: string;
  call: CallShape;
}

export const SAMPLE_SPECIES = {
  blackbird: {
    scientificName: 'Turdus merula',
    commonName: 'Eurasian Blackbird',
    code: 'eurbla',
    call: { fromHz: 2_400, toHz: 1_600, noteSec: 0.45, gapSec: 0.2, notes: 3, wobbleHz: 120 },
  },
  robin: {
    scientificName: 'Erithacus rubecula',
    commonName: 'European Robin',
    code: 'eurrob1',
    call: { fromHz: 6_500, toHz: 3_200, noteSec: 0.18, gapSec: 0.08, notes: 6, wobbleHz: 300 },
  },
  greatTit: {
    scientificName: 'Parus major',
    commonName: 'Great Tit',
    code: 'gretit1',
    call: { fromHz: 4_200, toHz: 3_000, noteSec: 0.14, gapSec: 0.12, notes: 6 },
  },
  chaffinch: {
    scientificName: 'Fringilla coelebs',
    commonName: 'Common Chaffinch',
    code: 'comcha',
    call: { fromHz: 6_000, toHz: 2_800, noteSec: 0.09, gapSec: 0.05, notes: 12 },
  },
  wren: {
    scientificName: 'Troglodytes troglodytes',
    commonName: 'Eurasian Wren',
    code: 'winwre4',
    call: { fromHz: 7_500, toHz: 5_000, noteSec: 0.05, gapSec: 0.03, notes: 24, wobbleHz: 400 },
  },
  blueTit: {
    scientificName: 'Cyanistes caeruleus',
    commonName: 'Eurasian Blue Tit',
    code: 'blutit',
    call: { fromHz: 7_000, toHz: 6_200, noteSec: 0.2, gapSec: 0.1, notes: 4 },
  },
} as const satisfies Record<string, SampleSpecies>;

export type SampleSpeciesKey = keyof typeof SAMPLE_SPECIES;

/** The result formats the demo writes (one recording each, analyzerpi three times). */
export type SampleFormat = 'analyzerpi' | 'raven' | 'csv' | 'sidecar';

export interface SampleDetection {
  species: SampleSpecies;
  /** Seconds from the start of the recording; the analyzer's 3 s segments. */
  startSec: number;
  endSec: number;
  confidence: number;
}

export interface PlannedRecording {
  format: SampleFormat;
  /** Epoch ms of the recording's start (whole seconds: file names have no fractions). */
  startMs: number;
  detections: SampleDetection[];
}

export interface SamplePlan {
  /** IANA zone the station (and so its analyzer) writes local times in. */
  zone: string;
  durationSec: number;
  sampleRate: number;
  recordings: PlannedRecording[];
}

/** The station's threshold in the demo: the samples hold a few detections below it, which are not uploaded. */
export const DEMO_MIN_CONFIDENCE = 0.5;

const DURATION_SEC = 15;
const SAMPLE_RATE = 48_000;
const SEGMENT_SEC = 3;

type Row = [SampleSpeciesKey, startSec: number, confidence: number];

const RECORDINGS: [SampleFormat, Row[]][] = [
  ['analyzerpi', [['blackbird', 0, 0.91], ['blackbird', 6, 0.78], ['robin', 9, 0.66]]],
  ['raven', [['wren', 0, 0.93], ['wren', 3, 0.85], ['blueTit', 9, 0.55]]],
  ['analyzerpi', [['greatTit', 0, 0.87], ['chaffinch', 3, 0.72], ['greatTit', 12, 0.41]]],
  ['csv', [['robin', 0, 0.88], ['chaffinch', 6, 0.62], ['blackbird', 12, 0.35]]],
  ['sidecar', [['blueTit', 3, 0.79], ['greatTit', 6, 0.95], ['wren', 9, 0.52]]],
  ['analyzerpi', [['blackbird', 3, 0.97], ['robin', 6, 0.74], ['chaffinch', 9, 0.45]]],
];

/**
 * The sample recordings, ending a couple of minutes before `now` and spaced up to
 * two minutes apart, so that they are "today" for the service's day views (only
 * in the first minutes after midnight do the first ones fall on yesterday).
 */
export function planSamples(options: { now?: number; zone: string }): SamplePlan {
  const now = options.now ?? Date.now();
  const count = RECORDINGS.length;
  const sinceMidnightSec = secondsSinceLocalMidnight(now, options.zone);
  const spacingSec = Math.max(DURATION_SEC + 5, Math.min(120, Math.floor((sinceMidnightSec - 60) / (count + 1))));
  const lastStartMs = Math.floor(now / 1000) * 1000 - 60_000;
  const recordings = RECORDINGS.map(([format, rows], i): PlannedRecording => ({
    format,
    startMs: lastStartMs - (count - 1 - i) * spacingSec * 1000,
    detections: rows.map(([key, startSec, confidence]) => ({
      species: SAMPLE_SPECIES[key],
      startSec,
      endSec: startSec + SEGMENT_SEC,
      confidence,
    })),
  }));
  return { zone: options.zone, durationSec: DURATION_SEC, sampleRate: SAMPLE_RATE, recordings };
}

export interface ExpectedSpecies {
  scientificName: string;
  commonName: string;
  /** Detections at or above the threshold: what the service should hold. */
  detections: number;
  /** Detections below it: written, not uploaded. */
  below: number;
}

/** What the service should hold once everything is uploaded. */
export function expectedAtService(plan: SamplePlan, minConfidence = DEMO_MIN_CONFIDENCE): {
  species: ExpectedSpecies[];
  detections: number;
  below: number;
  soundscapes: number;
  durationSec: number;
} {
  const bySpecies = new Map<string, ExpectedSpecies>();
  let soundscapes = 0;
  for (const rec of plan.recordings) {
    // A recording without any detection at or above the threshold is not uploaded at all.
    if (rec.detections.some((d) => d.confidence >= minConfidence)) soundscapes++;
    for (const d of rec.detections) {
      const entry = bySpecies.get(d.species.scientificName) ?? { scientificName: d.species.scientificName, commonName: d.species.commonName, detections: 0, below: 0 };
      if (d.confidence >= minConfidence) entry.detections++;
      else entry.below++;
      bySpecies.set(d.species.scientificName, entry);
    }
  }
  const species = [...bySpecies.values()].sort((a, b) => b.detections - a.detections || a.commonName.localeCompare(b.commonName));
  return {
    species,
    detections: species.reduce((n, s) => n + s.detections, 0),
    below: species.reduce((n, s) => n + s.below, 0),
    soundscapes,
    durationSec: soundscapes * plan.durationSec,
  };
}

function secondsSinceLocalMidnight(now: number, zone: string): number {
  const local = DateTime.fromMillis(now, { zone });
  return Math.floor((local.toMillis() - local.startOf('day').toMillis()) / 1000);
}
