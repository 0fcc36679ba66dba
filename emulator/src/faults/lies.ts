import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { DetectionRecord, SoundscapeRecord } from '../store/records.js';
import type { EmulatorStore } from '../store/index.js';
import { seededRandom } from './random.js';
import type { NormalizedFaults } from './spec.js';

/** What a lie did to one accepted item; `copyId` is the second uploader's copy. */
export interface Lie {
  fault: 'lose-soundscape' | 'lose-detection' | 'alter-filesize' | 'alter-duration' | 'second-uploader';
  kind: 'soundscape' | 'detection';
  /** The id the 201 answered with. */
  id: number;
  copyId?: number;
}

/** A lost soundscape: what a detection posted for it afterwards is checked against. */
export interface LostSoundscape {
  stationId: number;
  timestampMs: number;
  duration: number;
}

/** How much longer a soundscape is said to be by `alter-duration`: beyond any rounding of seconds. */
const EXTRA_SECONDS = 7;

/**
 * The local service lying about what it accepted, so that the agent's delivery audit
 * has something to find (docs/EMULATOR.md, "Fault injection"). Each lie happens after
 * the 201 was written from the true record: the answer is the truth, what is served
 * afterwards is not. Drawn from a generator of its own (seeded with the emulator's
 * seed), so specs without lies meet the same request faults as before; `told` lists
 * every lie, for tests to hold the audit's findings against.
 *
 * A lost soundscape keeps its id usable for the detections posted with it afterwards
 * (they are stored without a soundscape, as the real service keeps detections whose
 * audio it never processed); that memory lives as long as the process.
 */
export class Lies {
  private random: () => number;
  private faults: NormalizedFaults | null = null;
  private readonly lost = new Map<number, LostSoundscape>();
  readonly told: Lie[] = [];

  constructor(private readonly seed: number) {
    this.random = seededRandom(seed ^ 0x11e5);
  }

  /** New faults (the injector's `set`): the generator restarts from the seed. */
  reset(faults: NormalizedFaults | null): void {
    this.faults = faults;
    this.random = seededRandom(this.seed ^ 0x11e5);
  }

  /** A lost soundscape of this id, if one is. */
  lostSoundscape(id: number): LostSoundscape | undefined {
    return this.lost.get(id);
  }

  /** After a soundscape's 201: lose it, alter it, or have a second uploader post it again. */
  async soundscapeStored(store: EmulatorStore, dataDir: string, record: SoundscapeRecord): Promise<void> {
    const f = this.faults;
    if (!f || f.loseSoundscape + f.alterFilesize + f.alterDuration + f.secondUploader === 0) return;
    const draw = this.random();
    const copyDraw = this.random();
    let edge = f.loseSoundscape;
    if (draw < edge) {
      store.soundscapes.delete(record.id);
      this.lost.set(record.id, { stationId: record.stationId, timestampMs: record.timestampMs, duration: record.duration });
      this.told.push({ fault: 'lose-soundscape', kind: 'soundscape', id: record.id });
      await rm(path.join(dataDir, 'soundscapes', record.fileKey), { force: true });
      return;
    }
    if (draw < (edge += f.alterFilesize)) {
      store.soundscapes.alter(record.id, { filesize: Math.max(1, Math.round(record.filesize / 2)) });
      this.told.push({ fault: 'alter-filesize', kind: 'soundscape', id: record.id });
    } else if (draw < edge + f.alterDuration) {
      store.soundscapes.alter(record.id, { duration: record.duration + EXTRA_SECONDS });
      this.told.push({ fault: 'alter-duration', kind: 'soundscape', id: record.id });
    }
    if (copyDraw < f.secondUploader) {
      const { id, createdMs, ...copy } = record;
      const made = store.soundscapes.insert(copy, createdMs);
      this.told.push({ fault: 'second-uploader', kind: 'soundscape', id, copyId: made.id });
    }
  }

  /**
   * After a detection's 201: lose it, or have a second uploader post it again (one draw:
   * `[0, lose)` loses, the next `second-uploader` of the range copies). The copy has the
   * same instant and species and no soundscape: the other uploader's audio is not ours.
   */
  detectionStored(store: EmulatorStore, record: DetectionRecord): void {
    const f = this.faults;
    if (!f || f.loseDetection + f.secondUploader === 0) return;
    const draw = this.random();
    if (draw < f.loseDetection) {
      store.detections.delete(record.id);
      this.told.push({ fault: 'lose-detection', kind: 'detection', id: record.id });
      return;
    }
    if (draw < f.loseDetection + f.secondUploader) {
      const { id, createdMs, ...copy } = record;
      const made = store.detections.insert(
        { ...copy, soundscapeId: null, soundscapeStartTime: null, soundscapeEndTime: null },
        createdMs,
      );
      this.told.push({ fault: 'second-uploader', kind: 'detection', id, copyId: made.id });
    }
  }
}
