import type { BatBehaviorKey, Detection, ShortlistEntry } from '../../../src/wire/types.js';
import type { DetectionRecord, SpeciesRecord, StationRecord } from '../store/index.js';
import type { EmulatorContext } from '../context.js';
import { formatTimestamp } from '../time.js';
import { speciesRef } from './species.js';
import { soundscapeUrl } from './soundscape.js';

/** Human-readable labels of the bat behavior keys (the `behavior` field). */
export const BEHAVIOR_LABELS: Record<BatBehaviorKey, string> = {
  bat_search_open: 'Search (open space)',
  bat_search_clutter: 'Search (clutter)',
  bat_chase: 'Chase',
  bat_feeding_buzz: 'Feeding buzz',
  bat_approach: 'Approach',
  bat_pass: 'Pass',
};

export interface DetectionView {
  /** Only the creation response carries the soundscape's id. */
  withSoundscapeId?: boolean;
  /** Asked for and allowed (bat edition); see `shortlistServed`. */
  withShortlist?: boolean;
}

/** The shortlist is served only to stations on the bat edition, never to `standard_bat` units. */
export function shortlistServed(station: StationRecord): boolean {
  return station.edition === 'bat';
}

/** Renders detections of one station, loading each species and soundscape once. */
export class DetectionPresenter {
  private readonly species = new Map<number, SpeciesRecord>();

  constructor(
    private readonly context: EmulatorContext,
    private readonly station: StationRecord,
  ) {}

  private speciesById(id: number): SpeciesRecord {
    let species = this.species.get(id);
    if (!species) {
      species = this.context.store.species.byId(id);
      if (!species) throw new Error(`detection refers to unknown species ${id}`);
      this.species.set(id, species);
    }
    return species;
  }

  private shortlist(detection: DetectionRecord): ShortlistEntry[] {
    return [...(detection.shortlist ?? [])]
      .sort((a, b) => b.weight - a.weight)
      .map((item) => {
        const species = this.speciesById(item.speciesId);
        return {
          speciesId: species.id,
          commonName: species.commonName,
          scientificName: species.scientificName,
          weight: item.weight,
        };
      });
  }

  render(detection: DetectionRecord, view: DetectionView = {}): Detection {
    const { store, mediaUrl } = this.context;
    const soundscape = detection.soundscapeId === null ? undefined : store.soundscapes.byId(detection.soundscapeId);
    const out: Detection = {
      id: detection.id,
      stationId: detection.stationId,
      timestamp: formatTimestamp(detection.timestampMs, this.station.timezone),
      species: speciesRef(this.speciesById(detection.speciesId), mediaUrl),
      lat: detection.lat,
      lon: detection.lon,
      confidence: detection.confidence,
      probability: detection.probability,
      score: detection.score,
      certainty: detection.certainty,
      algorithm: detection.algorithm,
      metadata: detection.metadata ?? null,
      soundscape: soundscape
        ? {
            ...(view.withSoundscapeId ? { id: soundscape.id } : {}),
            url: soundscapeUrl(soundscape, mediaUrl),
            startTime: detection.soundscapeStartTime ?? 0,
            endTime: detection.soundscapeEndTime ?? soundscape.duration,
            mode: soundscape.mode,
          }
        : null,
    };
    if (detection.behaviorKey !== null) {
      out.behavior = BEHAVIOR_LABELS[detection.behaviorKey];
      out.behavior_key = detection.behaviorKey;
      if (detection.behaviorConfidence !== null) out.behavior_confidence = detection.behaviorConfidence;
    }
    if (view.withShortlist && shortlistServed(this.station) && detection.shortlist?.length) {
      out.shortlist = this.shortlist(detection);
    }
    return out;
  }
}
