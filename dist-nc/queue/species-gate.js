import { release } from './hold.js';
import { transitionWhere } from './state.js';
export const SPECIES_GATE = 'species-gate';
export const SPECIES_GATE_CODE = 'ERR_SPECIES_GATE';
export const SPECIES_GATE_WINDOW_MS = 86_400_000;
const W = SPECIES_GATE_WINDOW_MS;
export function recordSightings(q, sightings, minDetections, now = Date.now()) {
    if (sightings.length === 0)
        return 0;
    const insert = q.stmt('INSERT OR IGNORE INTO species_sightings (species, detected_at, dedupe_key, expires_at) VALUES (@species, @detectedAt, @dedupeKey, @expiresAt)');
    const windows = q.stmt(`SELECT MIN(u.detected_at) AS lo, MAX(u.detected_at) AS hi FROM species_sightings u
     WHERE u.species = @s AND u.detected_at BETWEEN @t AND @t + ${W}
       AND (SELECT COUNT(*) FROM species_sightings v
            WHERE v.species = @s AND v.detected_at BETWEEN u.detected_at - ${W} AND u.detected_at) >= @n`);
    const held = q.stmt(`SELECT id, recording_id FROM detections WHERE hold_reason = '${SPECIES_GATE}' AND dedupe_key IN (
       SELECT dedupe_key FROM species_sightings WHERE species = @s AND detected_at BETWEEN @lo - ${W} AND @hi)`);
    return q.write(() => {
        for (const s of sightings)
            insert.run({ ...s, expiresAt: Math.max(s.detectedAt, now) + W });
        const detections = new Set();
        const recordings = new Set();
        for (const s of sightings) {
            const found = windows.get({ s: s.species, t: s.detectedAt, n: minDetections });
            if (found.lo === null || found.hi === null)
                continue;
            for (const row of held.all({ s: s.species, lo: found.lo, hi: found.hi })) {
                detections.add(row.id);
                if (row.recording_id !== null)
                    recordings.add(row.recording_id);
            }
        }
        const released = release(q, 'detection', [...detections], { now });
        releaseRecordings(q, [...recordings], now);
        return released;
    });
}
function releaseRecordings(q, ids, now) {
    if (ids.length === 0)
        return;
    const gated = q
        .stmt(`SELECT id FROM recordings WHERE id IN (SELECT value FROM json_each(?)) AND hold_reason = '${SPECIES_GATE}'`)
        .all(JSON.stringify(ids));
    release(q, 'recording', gated.map((r) => r.id), { now });
}
export function expireSpeciesGate(q, minDetections, now = Date.now()) {
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
        const waiting = `hold_reason = '${SPECIES_GATE}' AND NOT EXISTS (
      SELECT 1 FROM detections d WHERE d.recording_id = recordings.id AND d.hold_reason = '${SPECIES_GATE}' AND d.state = 'pending')`;
        const freed = q
            .stmt(`SELECT id FROM recordings WHERE waiting = 1 AND state = 'pending' AND ${waiting}
           AND EXISTS (SELECT 1 FROM detections d WHERE d.recording_id = recordings.id AND d.state != 'dropped')`)
            .all();
        release(q, 'recording', freed.map((r) => r.id), { now });
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
