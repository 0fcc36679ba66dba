import { release } from '../queue/index.js';
import { SPECIES_GATE, expireSpeciesGate } from '../queue/species-gate.js';
import { addPolicyCounts, emptyCounts } from './counts.js';
export class SpeciesGateSweep {
    queue;
    minDetections;
    log;
    releasedAtStart = false;
    constructor(queue, minDetections, log) {
        this.queue = queue;
        this.minDetections = minDetections;
        this.log = log;
    }
    run(now = Date.now()) {
        if (this.minDetections <= 1) {
            if (this.releasedAtStart)
                return;
            this.releasedAtStart = true;
            const n = release(this.queue, 'detection', { reason: SPECIES_GATE }) + release(this.queue, 'recording', { reason: SPECIES_GATE });
            if (n > 0)
                this.log.info({ items: n }, 'filters.minDetectionsPer24h is off: items the species gate held are released');
            return;
        }
        const expired = expireSpeciesGate(this.queue, this.minDetections, now);
        if (expired.detections + expired.recordings === 0)
            return;
        addPolicyCounts(this.queue, { ...emptyCounts(), speciesGateExpired: expired.detections }, { now });
        this.log.info({ detections: expired.detections, recordings: expired.recordings, policy: 'species-gate' }, `species gate: ${expired.detections} held detections expired (fewer than ${this.minDetections} of their species within 24 h); ${expired.recordings} recordings dropped with them`);
    }
}
