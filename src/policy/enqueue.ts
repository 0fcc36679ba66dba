import type { Logger } from 'pino';
import { enqueueRecording, type EnqueueInput, type EnqueueResult, type Queue } from '../queue/index.js';
import { SPECIES_GATE, recordSightings } from '../queue/species-gate.js';
import { addPolicyCounts, type PolicyCounts } from './counts.js';
import type { StationPolicy, Withheld } from './recording-policy.js';

/**
 * Where ingest hands its decision over: queues a batch of a recording's items with the
 * species gate applied, in ONE transaction (a crash leaves no items without their
 * sightings). The policy counts of the whole file are added once it was read
 * (`countCounts`).
 *
 * With the gate on (`filters.minDetectionsPer24h` > 1) every new detection is queued
 * held for `species-gate`, and the recording too unless it is held already; recording
 * the sightings then releases at once whatever reached the count (usually the new ones
 * themselves, for a species seen often).
 */
export function enqueueWithPolicy(
  q: Queue,
  policy: StationPolicy,
  input: EnqueueInput,
  now = Date.now(),
): EnqueueResult {
  const gate = policy.gateMinDetections > 1;
  const gated: EnqueueInput = gate
    ? {
        recording: input.recording ? { ...input.recording, holdReason: input.recording.holdReason ?? SPECIES_GATE } : null,
        detections: input.detections.map((d) => ({ ...d, holdReason: d.holdReason ?? SPECIES_GATE })),
      }
    : input;
  return q.write(() => {
    const result = enqueueRecording(q, gated, { now });
    if (gate) {
      const sightings = gated.detections
        .filter((d) => d.holdReason === SPECIES_GATE)
        .map((d) => ({ species: d.scientificName, detectedAt: Date.parse(d.timestamp), dedupeKey: d.dedupeKey }));
      recordSightings(q, sightings, policy.gateMinDetections, now);
    }
    return result;
  });
}

/** Counts what the policies kept back of one result file. */
export function countCounts(q: Queue, counts: PolicyCounts): void {
  addPolicyCounts(q, counts);
}

/** The log line of a withheld soundscape: the file, the class and its confidence; never any audio. */
export function logWithheld(log: Logger, resultPath: string, w: Withheld, audioDeleted: boolean): void {
  if (w.reason !== 'human') return;
  log.warn(
    { file: resultPath, class: w.className, confidence: w.confidence, line: w.line, policy: 'privacy' },
    `privacy: ${resultPath} line ${w.line}: ${w.className} at ${w.confidence}; the soundscape is not uploaded` +
      `${audioDeleted ? ' and its spooled audio was deleted' : ''}, its other detections go without it`,
  );
}
