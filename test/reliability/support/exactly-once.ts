import path from 'node:path';
import type { ServiceClient } from '../../../src/api/index.js';
import type { Detection, Soundscape } from '../../../src/wire/types.js';
import { openQueue, queueCounts, type QueueCounts } from '../../../src/queue/index.js';
import type { ExpectedRecording } from './backlog.js';

/**
 * The oracle of every scenario: what the service holds, read back through its REST
 * listings, against what the analyzer wrote. Detections are compared by (instant,
 * scientific name), soundscapes by instant; each must be there exactly once.
 */

const EVER = { from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' };
const PAGE = 100;

export interface ServiceHoldings {
  detections: Detection[];
  soundscapes: Soundscape[];
}

export async function serviceHoldings(client: ServiceClient): Promise<ServiceHoldings> {
  const detections: Detection[] = [];
  for (let cursor: number | undefined; ; ) {
    const res = await client.listDetections({ ...EVER, limit: PAGE, cursor });
    detections.push(...res.detections);
    if (res.detections.length < PAGE) break;
    cursor = res.detections[res.detections.length - 1].id;
  }
  const soundscapes: Soundscape[] = [];
  for (let cursor: number | undefined; ; ) {
    const res = await client.listSoundscapes({ ...EVER, limit: PAGE, cursor });
    soundscapes.push(...res.soundscapes);
    if (res.soundscapes.length < PAGE) break;
    cursor = res.soundscapes[res.soundscapes.length - 1].id;
  }
  return { detections, soundscapes };
}

export interface ExactlyOnceReport {
  /** Expected and absent: `<ISO instant> <scientific name>` or `soundscape <ISO instant>`. */
  missing: string[];
  /** Present more than once, with the count. */
  duplicated: string[];
  /** Present and never expected. */
  unexpected: string[];
  /** Detections expected with a soundscape that point at no soundscape, or at another recording's. */
  wrongSoundscape: string[];
}

export interface ExactlyOnceOptions {
  /** Recordings whose soundscape is not expected at the service (no audio); their detections go without. */
  withoutSoundscape?: ReadonlySet<string>;
}

const detectionKey = (ms: number, scientificName: string) => `${new Date(ms).toISOString()} ${scientificName}`;
const soundscapeKey = (ms: number) => `soundscape ${new Date(ms).toISOString()}`;

/** Compares the service's holdings with the expected recordings. All lists empty means exactly once. */
export function exactlyOnce(
  expected: readonly ExpectedRecording[],
  held: ServiceHoldings,
  options: ExactlyOnceOptions = {},
): ExactlyOnceReport {
  const noAudio = options.withoutSoundscape ?? new Set<string>();
  const want = new Map<string, number>();
  const owner = new Map<string, ExpectedRecording>();
  for (const rec of expected) {
    if (!noAudio.has(rec.base)) want.set(soundscapeKey(rec.startMs), 0);
    for (const d of rec.detections) {
      const key = detectionKey(d.timestampMs, d.scientificName);
      want.set(key, 0);
      owner.set(key, rec);
    }
  }
  const report: ExactlyOnceReport = { missing: [], duplicated: [], unexpected: [], wrongSoundscape: [] };
  const seen = new Map<string, number>();
  const urlByStart = new Map<number, string>();
  for (const s of held.soundscapes) {
    const ms = Date.parse(s.timestamp);
    urlByStart.set(ms, s.url);
    const key = soundscapeKey(ms);
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  for (const d of held.detections) {
    const key = detectionKey(Date.parse(d.timestamp), d.species.scientificName);
    seen.set(key, (seen.get(key) ?? 0) + 1);
    const rec = owner.get(key);
    if (!rec) continue;
    const wantUrl = noAudio.has(rec.base) ? undefined : urlByStart.get(rec.startMs);
    const gotUrl = d.soundscape?.url ?? undefined;
    if (gotUrl !== wantUrl) report.wrongSoundscape.push(`${key}: soundscape ${gotUrl ?? 'none'}, expected ${wantUrl ?? 'none'}`);
  }
  for (const key of want.keys()) if (!seen.has(key)) report.missing.push(key);
  for (const [key, n] of seen) {
    if (!want.has(key)) report.unexpected.push(`${key} (x${n})`);
    else if (n > 1) report.duplicated.push(`${key} (x${n})`);
  }
  for (const list of Object.values(report)) list.sort();
  return report;
}

export const EXACTLY_ONCE: ExactlyOnceReport = { missing: [], duplicated: [], unexpected: [], wrongSoundscape: [] };

export function expectedCounts(expected: readonly ExpectedRecording[]): { recordings: number; detections: number } {
  return { recordings: expected.length, detections: expected.reduce((n, r) => n + r.detections.length, 0) };
}

/** Opens the queue database of `dataDir` (the agent stopped or running: WAL lets both read). */
export function withQueue<T>(dataDir: string, fn: (q: ReturnType<typeof openQueue>) => T): T {
  const q = openQueue(path.join(dataDir, 'queue.db'));
  try {
    return fn(q);
  } finally {
    q.close();
  }
}

/** Items still to send: pending, sending or unknown. */
export function waiting(c: QueueCounts): { recordings: number; detections: number } {
  const w = (s: Record<string, number>) => (s.pending ?? 0) + (s.sending ?? 0) + (s.unknown ?? 0);
  return { recordings: w(c.recordings), detections: w(c.detections) };
}

export function total(s: Record<string, number>): number {
  return Object.values(s).reduce((a, b) => a + b, 0);
}

export { queueCounts };
