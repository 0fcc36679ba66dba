import { formatServiceTimestamp } from '../../src/ingest/recording-time.js';
import type { EnqueueInput } from '../../src/queue/index.js';
import { STATION } from './service-process.js';

/**
 * The drain's backlog, generated the same way for the agent (seeded into its
 * queue) and for the baselines (held in memory), so all of them make exactly the
 * same requests: one soundscape upload per recording, then its detections with the
 * soundscape's id.
 */
export interface WorkDetection {
  timestamp: string;
  startS: number;
  endS: number;
  scientificName: string;
  commonName: string;
  confidence: number;
}

export interface WorkRecording {
  index: number;
  /** Start, ISO 8601 with offset (the station's zone is UTC). */
  timestamp: string;
  detections: WorkDetection[];
}

export interface WorkloadSize {
  soundscapes: number;
  detections: number;
  /** Epoch ms the first recording starts at; the same for every reader of the workload. */
  startMs: number;
}

/** Species of the local service's default catalog (emulator/assets/default-species.txt). */
export const SPECIES: readonly [string, string][] = [
  ['Turdus merula', 'Eurasian Blackbird'],
  ['Erithacus rubecula', 'European Robin'],
  ['Parus major', 'Great Tit'],
  ['Cyanistes caeruleus', 'Eurasian Blue Tit'],
  ['Fringilla coelebs', 'Common Chaffinch'],
  ['Passer domesticus', 'House Sparrow'],
  ['Sturnus vulgaris', 'European Starling'],
  ['Troglodytes troglodytes', 'Eurasian Wren'],
];

export const SOUNDSCAPE_SECONDS = 15;
const WINDOW_SECONDS = 3;

/** Detections spread evenly over the recordings (the first ones take the remainder). */
export function buildWorkload(size: WorkloadSize): WorkRecording[] {
  const { soundscapes, detections } = size;
  const out: WorkRecording[] = [];
  const base = Math.floor(detections / soundscapes);
  const extra = detections % soundscapes;
  for (let i = 0; i < soundscapes; i++) {
    const startMs = size.startMs + i * SOUNDSCAPE_SECONDS * 1000;
    const count = base + (i < extra ? 1 : 0);
    const list: WorkDetection[] = [];
    for (let j = 0; j < count; j++) {
      const window = j % (SOUNDSCAPE_SECONDS / WINDOW_SECONDS);
      const [scientificName, commonName] = SPECIES[(i + j) % SPECIES.length];
      const startS = window * WINDOW_SECONDS;
      list.push({
        timestamp: formatServiceTimestamp(new Date(startMs + startS * 1000), STATION.timezone),
        startS,
        endS: startS + WINDOW_SECONDS,
        scientificName,
        commonName,
        confidence: 0.5 + ((i * 7 + j * 13) % 50) / 100,
      });
    }
    out.push({ index: i, timestamp: formatServiceTimestamp(new Date(startMs), STATION.timezone), detections: list });
  }
  return out;
}

/** The workload as queue input: audio already encoded to FLAC in the spool. */
export function toEnqueueInput(r: WorkRecording, spoolPath: string, filesize: number): EnqueueInput {
  return {
    recording: {
      sourceKey: `bench-${r.index}`,
      sourcePath: `/bench/input/bench-${r.index}.wav`,
      spoolPath,
      audioFormat: 'flac',
      timestamp: r.timestamp,
      timeSource: 'filename',
      durationS: SOUNDSCAPE_SECONDS,
      sampleRate: 48_000,
      filesize,
    },
    detections: r.detections.map((d, j) => ({
      dedupeKey: `bench-${r.index}|${j}`,
      ...d,
      lat: STATION.lat,
      lon: STATION.lon,
    })),
  };
}
