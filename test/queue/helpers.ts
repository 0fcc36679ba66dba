import path from 'node:path';
import { tempDir } from '../helpers/paths.js';
import { openQueue, type Queue } from '../../src/queue/db.js';
import type { NewDetection, NewRecording } from '../../src/queue/types.js';

/** A queue in a fresh temp folder, and its cleanup. */
export function tempQueue(): { q: Queue; dir: string; dbPath: string; cleanup: () => void } {
  const { dir, cleanup } = tempDir('station-agent-queue-');
  const dbPath = path.join(dir, 'state', 'queue.db');
  const q = openQueue(dbPath);
  return {
    q,
    dir,
    dbPath,
    cleanup: () => {
      q.close();
      cleanup();
    },
  };
}

const T0 = Date.parse('2024-05-01T06:00:00+02:00');

/** Recording number `n`: 15 s chunks from 06:00 local (+02:00). */
export function recording(n: number, overrides: Partial<NewRecording> = {}): NewRecording {
  const start = new Date(T0 + n * 15_000);
  const timestamp = localIso(start);
  return {
    sourceKey: `rec-${n}.wav|${start.toISOString()}`,
    sourcePath: `/analyzer/rec-${n}.wav`,
    spoolPath: `/spool/rec-${n}.flac`,
    audioFormat: 'flac',
    timestamp,
    timeSource: 'filename',
    durationS: 15,
    sampleRate: 48_000,
    filesize: 400_000,
    ...overrides,
  };
}

/** Detection `i` of recording `n` (or of no recording when `n` names a standalone key). */
export function detection(sourceKey: string, i: number, overrides: Partial<NewDetection> = {}): NewDetection {
  const startS = i * 3;
  return {
    dedupeKey: `${sourceKey}|${startS}|Turdus merula`,
    timestamp: '2024-05-01T06:00:03.000+02:00',
    startS,
    endS: startS + 3,
    scientificName: 'Turdus merula',
    commonName: 'Eurasian Blackbird',
    confidence: 0.8,
    lat: 52.1,
    lon: 5.1,
    ...overrides,
  };
}

function localIso(d: Date): string {
  const local = new Date(d.getTime() + 2 * 3_600_000).toISOString().replace('Z', '');
  return `${local}+02:00`;
}
