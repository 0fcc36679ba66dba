import { enqueueRecording, type EnqueueInput, type EnqueueResult, type Queue } from '../queue/index.js';
import { SPECIES_GATE, recordSightings } from '../queue/species-gate.js';
import type { StationPolicy } from './recording-policy.js';

/**
 * Where ingest hands its decision over: queues a batch of a recording's items with the
 * species gate applied, in ONE transaction (a crash leaves no items without their
 * sightings). The policy counts of the whole file are added once it was read
 * (`addPolicyCounts`, in the file's last transaction).
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
