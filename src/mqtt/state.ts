import { getMeta, outboxCounts, queueCounts, type Queue, type StateCounts } from '../queue/index.js';
import type { RuntimeSnapshot } from '../runtime/snapshot.js';
import { readToday } from './outbox.js';
import type { StatePayload } from './topics.js';

/**
 * The `<base>/state` payload from what the queue and the running daemon know: the
 * queue's counts (12 rows), the uploader's pauses and circuit, the last upload, and
 * today's tally of published detections.
 */
export function statePayload(q: Queue, snapshot: RuntimeSnapshot | null, zone: string, now: number = Date.now()): StatePayload {
  const { counts, today, outbox, storedLastSuccess, audit } = q.read(() => ({
    counts: queueCounts(q),
    today: readToday(q, zone, now),
    outbox: outboxCounts(q),
    storedLastSuccess: getMeta(q, 'lastSuccessAt') ?? null,
    audit: getMeta(q, 'audit') ?? null,
  }));
  const waiting = (s: StateCounts) => s.pending + s.sending + s.unknown;
  const pausedReasons = (snapshot?.uploader.paused ?? []).map((p) => ({ reason: p.reason, message: p.message }));
  if (snapshot && snapshot.uploader.circuit === 'open') {
    pausedReasons.push({ reason: 'circuit', message: 'the service keeps failing: uploads wait for the next probe' });
  }
  const lastSuccess = Math.max(snapshot?.uploader.lastSuccessAt ?? 0, storedLastSuccess ?? 0);
  return {
    at: new Date(now).toISOString(),
    queue: {
      waiting: waiting(counts.detections) + waiting(counts.recordings),
      detectionsWaiting: waiting(counts.detections),
      soundscapesWaiting: waiting(counts.recordings),
      failed: counts.detections.failed + counts.recordings.failed,
    },
    uploadsPaused: pausedReasons.length > 0,
    pausedReasons,
    lastUploadAt: lastSuccess > 0 ? new Date(lastSuccess).toISOString() : null,
    detectionsToday: today.total,
    speciesToday: today.species,
    lastSpecies: today.last?.species ?? null,
    lastScientificName: today.last?.scientificName ?? null,
    lastDetectionAt: today.last?.timestamp ?? null,
    mqttPending: outbox.detections,
    deliveryMismatch: audit !== null && audit.missing + audit.altered + audit.foreign > 0,
    delivery: audit && {
      auditedAt: new Date(audit.at).toISOString(),
      from: audit.from,
      to: audit.to,
      missing: audit.missing,
      altered: audit.altered,
      foreign: audit.foreign,
      requeued: audit.requeued,
    },
  };
}

/** The payload without its time: a state is published again only when this changes (or after the heartbeat). */
export function stateSignature(state: StatePayload): string {
  return JSON.stringify({ ...state, at: null });
}
