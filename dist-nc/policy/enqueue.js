import { enqueueRecording } from '../queue/index.js';
import { SPECIES_GATE, recordSightings } from '../queue/species-gate.js';
export function enqueueWithPolicy(q, policy, input, now = Date.now()) {
    const gate = policy.gateMinDetections > 1;
    const gated = gate
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
