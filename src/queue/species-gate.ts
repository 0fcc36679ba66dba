import type { Queue } from './db.js';
import { releaseHolds } from './hold.js';
import { transitionWhere } from './state.js';
import type { RegisteredCode } from '../errors.js';

/**
 * The species gate (`filters.minDetectionsPer24h` = N): a species' detections are
 * posted only once N of them lie within 24 h of each other.
 *
 * - Ingest queues gated detections held (`hold_reason = 'species-gate'`), and their
 *   recording too when all its detections are held, and records a sighting per
 *   detection (species, detection time). Time is the detection's own, not the ingest's:
 *   a backfill behaves like live ingest.
 * - {@link recordSightings} (same transaction) releases every held detection of the
 *   species that lies in a 24 h window now holding N sightings, and their recordings.
 *   Windows are checked where they end, at each sighting from the new one to 24 h
 *   after it: exact for sightings arriving in any order, one query in live ingest.
 * - {@link expireSpeciesGate} (the retention sweep, once a minute) drops held
 *   detections 24 h after their detection time or their ingest, whichever is later
 *   (a backfill gets a day to bring the rest), with code `ERR_SPECIES_GATE`; a recording
 *   held for the gate whose detections are all dropped is dropped too (retention then
 *   deletes its audio), and one with a detection no longer held (released by the gate
 *   or by an operator) is released.
 */
export const SPECIES_GATE = 'species-gate';
export const SPECIES_GATE_CODE = 'ERR_SPECIES_GATE' satisfies RegisteredCode;
const SPECIES_GATE_WINDOW_MS = 86_400_000;

export interface Sighting {
  /** Scientific name as queued (compared exactly: the labels give one spelling). */
  species: string;
  /** Epoch ms of the detection. */
  detectedAt: number;
  dedupeKey: string;
}

const W = SPECIES_GATE_WINDOW_MS;

/**
 * Records the sightings and releases what reached `minDetections`. Returns how many
 * detections were released. Runs in the caller's transaction when there is one.
 */
export function recordSightings(q: Queue, sightings: readonly Sighting[], minDetections: number, now = Date.now()): number {
  if (sightings.length === 0) return 0;
  const insert = q.stmt(
    'INSERT OR IGNORE INTO species_sightings (species, detected_at, dedupe_key, expires_at) VALUES (@species, @detectedAt, @dedupeKey, @expiresAt)',
  );
  const windows = q.stmt(
    `SELECT MIN(u.detected_at) AS lo, MAX(u.detected_at) AS hi FROM species_sightings u
     WHERE u.species = @s AND u.detected_at BETWEEN @t AND @t + ${W}
       AND (SELECT COUNT(*) FROM species_sightings v
            WHERE v.species = @s AND v.detected_at BETWEEN u.detected_at - ${W} AND u.detected_at) >= @n`,
  );
  const held = q.stmt(
    `SELECT id, recording_id FROM detections WHERE hold_reason = '${SPECIES_GATE}' AND dedupe_key IN (
       SELECT dedupe_key FROM species_sightings WHERE species = @s AND detected_at BETWEEN @lo - ${W} AND @hi)`,
  );
  return q.write(() => {
    for (const s of sightings) insert.run({ ...s, expiresAt: Math.max(s.detectedAt, now) + W });
    const detections = new Set<number>();
    const recordings = new Set<number>();
    for (const s of sightings) {
      const found = windows.get({ s: s.species, t: s.detectedAt, n: minDetections }) as { lo: number | null; hi: number | null };
      if (found.lo === null || found.hi === null) continue;
      for (const row of held.all({ s: s.species, lo: found.lo, hi: found.hi }) as { id: number; recording_id: number | null }[]) {
        detections.add(row.id);
        if (row.recording_id !== null) recordings.add(row.recording_id);
      }
    }
    const released = releaseHolds(q, 'detection', { ids: [...detections] }, { now }).length;
    releaseHolds(q, 'recording', { ids: [...recordings], reason: SPECIES_GATE }, { now });
    return released;
  });
}

export interface GateExpiry {
  detections: number;
  recordings: number;
}

/** Drops the held detections (and recordings) whose time ran out; prunes old sightings. */
export function expireSpeciesGate(q: Queue, minDetections: number, now = Date.now()): GateExpiry {
  const lastError = `species gate: fewer than filters.minDetectionsPer24h (${minDetections}) detections of this species within 24 h`;
  return q.write(() => {
    const detections = transitionWhere(q, 'detection', 'dropped', {
      from: ['pending'],
      ids: `SELECT d.id FROM species_sightings s JOIN detections d ON d.dedupe_key = s.dedupe_key
            WHERE s.expires_at <= @now AND d.hold_reason = '${SPECIES_GATE}'`,
      params: { now },
      patch: { lastError, lastErrorCode: SPECIES_GATE_CODE, holdReason: null },
      now,
    }).length;
    // A gated recording waits while any of its detections is held for the gate.
    const waiting = `hold_reason = '${SPECIES_GATE}' AND NOT EXISTS (
      SELECT 1 FROM detections d WHERE d.recording_id = recordings.id AND d.hold_reason = '${SPECIES_GATE}' AND d.state = 'pending')`;
    const freed = q
      .stmt(
        `SELECT id FROM recordings WHERE waiting = 1 AND state = 'pending' AND ${waiting}
           AND EXISTS (SELECT 1 FROM detections d WHERE d.recording_id = recordings.id AND d.state != 'dropped')`,
      )
      .all() as { id: number }[];
    releaseHolds(q, 'recording', { ids: freed.map((r) => r.id) }, { now });
    const recordings = transitionWhere(q, 'recording', 'dropped', {
      from: ['pending'],
      where: waiting,
      patch: { lastError: `${lastError}: no detection of this recording is posted`, lastErrorCode: SPECIES_GATE_CODE, holdReason: null },
      now,
    }).length;
    q.stmt('DELETE FROM species_sightings WHERE expires_at <= ?').run(now - W);
    return { detections, recordings };
  });
}
