import type { Config } from '../config/index.js';
import { emptyCounts, type PolicyCounts } from './counts.js';
import { NameMap, NameSet } from './names.js';

/**
 * The station's policies over one recording's analyzer rows, decided once at ingest
 * (where the decision is final, so nothing that will never be posted is queued):
 *
 * 1. privacy: a row of `privacy.humanClasses` at or above `privacy.humanMinConfidence`,
 *    among ALL rows the analyzer wrote (before any threshold), withholds the soundscape;
 *    `privacy.audio: never` withholds every soundscape. Human rows are never posted.
 * 2. `filters.nonBirdClasses`: never posted; counted per class (rows at or above their threshold).
 * 3. threshold: `filters.speciesMinConfidence` for the species, else `input.minConfidence`.
 * 4. `filters.exclude` (wins), then `filters.include` (when not empty).
 *
 * The species gate (`filters.minDetectionsPer24h`) depends on later detections and
 * acts in the queue (src/queue/species-gate.ts); `gateMinDetections` carries it there.
 */
/** What the policies read of an analyzer row (ingest's `ParsedDetection` is one). */
export interface PolicyRow {
  scientificName: string;
  commonName: string;
  /** 0..1 */
  confidence: number;
  /** 1-based line in the result file, for the privacy log line. */
  line: number;
}

export interface StationPolicy {
  decide<R extends PolicyRow>(rows: readonly R[]): RecordingDecision<R>;
  /** `filters.minDetectionsPer24h`: 1 means no gate. */
  readonly gateMinDetections: number;
  /** False with `privacy.audio: never`: no audio is taken into the spool at all. */
  readonly keepsAudio: boolean;
}

export type Withheld =
  | { reason: 'audio-never' }
  | { reason: 'human'; className: string; confidence: number; line: number };

export interface RecordingDecision<R extends PolicyRow = PolicyRow> {
  /** The rows to queue. */
  post: R[];
  /** Why the recording's soundscape must not be spooled or uploaded; null when it may. */
  withheld: Withheld | null;
  /** Rows below their threshold (not counted: the analyzer's own noise floor). */
  below: number;
  /** What the policies kept back, to add to the stored counts. */
  counts: PolicyCounts;
}

export function createStationPolicy(config: Pick<Config, 'input' | 'privacy' | 'filters'>): StationPolicy {
  const humans = new NameSet(config.privacy.humanClasses);
  const nonBird = new NameSet(config.filters.nonBirdClasses);
  const include = new NameSet(config.filters.include);
  const exclude = new NameSet(config.filters.exclude);
  const speciesMin = new NameMap(config.filters.speciesMinConfidence);
  const minConfidence = config.input.minConfidence;
  const { withholdHumanRecordings, humanMinConfidence } = config.privacy;

  return {
    gateMinDetections: config.filters.minDetectionsPer24h,
    keepsAudio: config.privacy.audio !== 'never',
    decide<R extends PolicyRow>(rows: readonly R[]): RecordingDecision<R> {
      const counts = emptyCounts();
      const post: R[] = [];
      let below = 0;
      let human: Extract<Withheld, { reason: 'human' }> | null = null;
      for (const row of rows) {
        const override = speciesMin.get(row);
        const threshold = override ?? minConfidence;
        const isHuman = humans.has(row);
        if (isHuman && withholdHumanRecordings && row.confidence >= humanMinConfidence && (!human || row.confidence > human.confidence)) {
          human = { reason: 'human', className: row.commonName, confidence: row.confidence, line: row.line };
        }
        if (row.confidence < threshold) {
          below++;
          if (override !== undefined && row.confidence >= minConfidence && !isHuman && !nonBird.has(row)) counts.belowSpeciesMinConfidence++;
          continue;
        }
        if (isHuman || nonBird.has(row)) {
          counts.nonBird[row.commonName] = (counts.nonBird[row.commonName] ?? 0) + 1;
        } else if (exclude.has(row) || (include.size > 0 && !include.has(row))) {
          counts.excluded++;
        } else {
          post.push(row);
        }
      }
      let withheld: Withheld | null = null;
      if (config.privacy.audio === 'never') withheld = { reason: 'audio-never' };
      else if (human) {
        withheld = human;
        counts.humanSoundscapesWithheld++;
      }
      return { post, withheld, below, counts };
    },
  };
}
