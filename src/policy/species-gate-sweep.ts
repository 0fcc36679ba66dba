import type { Logger } from 'pino';
import { releaseHolds, type Queue } from '../queue/index.js';
import { SPECIES_GATE, expireSpeciesGate } from '../queue/species-gate.js';
import { addPolicyCounts, emptyCounts } from './counts.js';

/**
 * The species gate's housekeeping, run by the retention sweep: with the gate on, drops
 * what waited too long (and counts it); with it off (`filters.minDetectionsPer24h` 1),
 * releases what an earlier config held, once per start, so nothing waits for a gate
 * that no longer exists.
 */
export class SpeciesGateSweep {
  private releasedAtStart = false;

  constructor(
    private readonly queue: Queue,
    private readonly minDetections: number,
    private readonly log: Logger,
  ) {}

  run(now = Date.now()): void {
    if (this.minDetections <= 1) {
      if (this.releasedAtStart) return;
      this.releasedAtStart = true;
      const n = releaseHolds(this.queue, 'detection', { reason: SPECIES_GATE }).length + releaseHolds(this.queue, 'recording', { reason: SPECIES_GATE }).length;
      if (n > 0) this.log.info({ items: n }, 'filters.minDetectionsPer24h is off: items the species gate held are released');
      return;
    }
    const expired = expireSpeciesGate(this.queue, this.minDetections, now);
    if (expired.detections + expired.recordings === 0) return;
    addPolicyCounts(this.queue, { ...emptyCounts(), speciesGateExpired: expired.detections }, { now });
    this.log.info(
      { detections: expired.detections, recordings: expired.recordings, policy: 'species-gate' },
      `species gate: ${expired.detections} held detections expired (fewer than ${this.minDetections} of their species within 24 h); ${expired.recordings} recordings dropped with them`,
    );
  }
}
