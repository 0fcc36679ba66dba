import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/validate.js';
import { enqueueWithPolicy } from '../../src/policy/enqueue.js';
import { createStationPolicy } from '../../src/policy/recording-policy.js';
import { getItem, spoolFilesToDelete, type Queue } from '../../src/queue/index.js';
import { SPECIES_GATE, SPECIES_GATE_CODE, expireSpeciesGate } from '../../src/queue/species-gate.js';
import { detection, recording, tempQueue } from './helpers.js';

const HOUR = 3_600_000;
const T = Date.parse('2024-05-01T06:00:00+02:00');
const NOW = Date.parse('2024-05-01T12:00:00+02:00');

let q: Queue;
let cleanup: () => void;
beforeEach(() => ({ q, cleanup } = tempQueue()));
afterEach(() => cleanup());

function gate(n: number) {
  return createStationPolicy(
    parseConfig({ service: { baseUrl: 'http://localhost:1' }, station: { latitude: 0, longitude: 0 }, input: { dir: '/in' }, filters: { minDetectionsPer24h: n } }, 'test'),
  );
}

/** Queues recording `n` with one blackbird detection at `at` (epoch ms). Returns the ids. */
function ingest(n: number, at: number, policy = gate(3), species = 'Turdus merula'): { recording: number; detection: number } {
  const rec = recording(n);
  const timestamp = new Date(at).toISOString();
  const det = detection(rec.sourceKey, 0, { timestamp, scientificName: species, dedupeKey: `${rec.sourceKey}|0|${species}` });
  const result = enqueueWithPolicy(q, policy, { recording: rec, detections: [det] }, NOW);
  const row = q.stmt('SELECT id FROM detections WHERE dedupe_key = ?').get(det.dedupeKey) as { id: number };
  return { recording: result.recordingId!, detection: row.id };
}

const held = (kind: 'recording' | 'detection', id: number) => getItem(q, kind, id)!.holdReason;

describe('species gate (filters.minDetectionsPer24h)', () => {
  it('holds the first detections of a species and their recordings, and releases all of them at the N-th within 24 h', () => {
    const a = ingest(1, T);
    const b = ingest(2, T + HOUR);
    expect([held('detection', a.detection), held('recording', a.recording), held('detection', b.detection)]).toEqual([SPECIES_GATE, SPECIES_GATE, SPECIES_GATE]);
    const c = ingest(3, T + 2 * HOUR);
    for (const x of [a, b, c]) {
      expect(held('detection', x.detection)).toBeNull();
      expect(held('recording', x.recording)).toBeNull();
    }
    // Once the species is confirmed, the next one goes at once.
    const d = ingest(4, T + 3 * HOUR);
    expect(held('detection', d.detection)).toBeNull();
  });

  it('counts by detection time: a backfill in any order releases the same detections', () => {
    const c = ingest(3, T + 2 * HOUR);
    const a = ingest(1, T);
    expect(held('detection', a.detection)).toBe(SPECIES_GATE);
    const b = ingest(2, T + HOUR);
    for (const x of [a, b, c]) expect(held('detection', x.detection)).toBeNull();
  });

  it('does not count detections more than 24 h apart, nor other species, nor the same detection twice', () => {
    const a = ingest(1, T);
    ingest(2, T + 25 * HOUR);
    ingest(3, T + 26 * HOUR, gate(3), 'Pica pica');
    ingest(1, T); // the same file again
    expect(held('detection', a.detection)).toBe(SPECIES_GATE);
    const late = ingest(4, T + 26 * HOUR);
    // T+25h and T+26h and ... only two blackbirds within 24 h of each other: still held.
    expect(held('detection', late.detection)).toBe(SPECIES_GATE);
    const third = ingest(5, T + 27 * HOUR);
    expect([held('detection', late.detection), held('detection', third.detection)]).toEqual([null, null]);
    expect(held('detection', a.detection)).toBe(SPECIES_GATE);
  });

  it('expires held detections 24 h after detection or ingest, whichever is later; drops recordings left with nothing to post, so retention deletes their audio', () => {
    const a = ingest(1, T);
    // Ingested at NOW (6 h after its detection): it expires at NOW + 24 h, not at T + 24 h.
    expect(expireSpeciesGate(q, 3, T + 25 * HOUR)).toEqual({ detections: 0, recordings: 0 });
    expect(expireSpeciesGate(q, 3, NOW + 24 * HOUR)).toEqual({ detections: 1, recordings: 1 });
    const det = getItem(q, 'detection', a.detection)!;
    expect(det).toMatchObject({ state: 'dropped', holdReason: null, lastErrorCode: SPECIES_GATE_CODE });
    expect(det.lastError).toMatch(/fewer than filters\.minDetectionsPer24h \(3\)/);
    expect(getItem(q, 'recording', a.recording)).toMatchObject({ state: 'dropped', lastErrorCode: SPECIES_GATE_CODE });
    expect(spoolFilesToDelete(q, { retentionMs: 0, limit: 10, now: NOW + 25 * HOUR }).map((f) => f.recordingId)).toEqual([a.recording]);
    // Old sightings are pruned a day after they expire.
    expireSpeciesGate(q, 3, NOW + 49 * HOUR);
    expect(q.stmt('SELECT COUNT(*) AS n FROM species_sightings').get()).toEqual({ n: 0 });
  });

  it('releases a recording held for the gate once an operator released its detection, instead of dropping it', () => {
    const a = ingest(1, T);
    q.stmt('UPDATE detections SET hold_reason = NULL WHERE id = ?').run(a.detection);
    expect(expireSpeciesGate(q, 3, NOW + 24 * HOUR)).toEqual({ detections: 0, recordings: 0 });
    expect(getItem(q, 'recording', a.recording)).toMatchObject({ state: 'pending', holdReason: null });
  });

  it('queues nothing held with the gate off', () => {
    const a = ingest(1, T, gate(1));
    expect([held('detection', a.detection), held('recording', a.recording)]).toEqual([null, null]);
    expect(q.stmt('SELECT COUNT(*) AS n FROM species_sightings').get()).toEqual({ n: 0 });
  });
});
