import { BAT_BEHAVIOR_KEYS, type BatBehaviorKey } from '../../../src/wire/types.js';
import type { EmulatorContext } from '../context.js';
import { MESSAGES, validationFailed } from '../http-errors.js';
import { qualityOf } from '../scoring.js';
import { defaultModeOf } from '../seed-stations.js';
import type { NewDetection, ShortlistItem, StationRecord } from '../store/index.js';
import { parseTimestamp } from '../time.js';
import { BodyReader } from './fields.js';

/** The analyzer version stored when a client sends no `algorithm`. */
export const DEFAULT_ALGORITHM = '2.4';

/** Seconds of audio an analyzer segment covers; the end time when only the start is sent. */
const SEGMENT_SECONDS = 3;

/**
 * Validates a post-detection body against the station and turns it into a row.
 * Rules (422 `{success: false, errors: {field: [message]}}` on any failure):
 * - `timestamp`, `commonName`, `scientificName`: required ("can't be blank");
 *   an unparsable timestamp "is invalid".
 * - the species is found by scientific name, case-insensitively; the common name
 *   is not used to find it. Unknown: `species: ["must exist"]`.
 * - `lat`/`lon` default to the station's; `confidence` (0..1) defaults to 0;
 *   numbers may be sent as numeric strings.
 * - `soundscapeId` must be a soundscape of this station (`soundscapeId: ["must exist"]`);
 *   `soundscapeStartTime` defaults to 0, `soundscapeEndTime` to start + 3 s; both are
 *   seconds, or ISO timestamps; the start must lie inside the soundscape, the end may run
 *   past its end (see BodyReader.secondsInto).
 * - `algorithm` is stored as sent (default "2.4").
 * - Emulator extensions for bat stations: `behavior_key` (with `behavior_confidence`)
 *   on bat species, and `shortlist`: an array of `{scientificName | speciesId, weight}`.
 * Unknown fields are ignored.
 */
export function readDetectionInput(
  context: EmulatorContext,
  station: StationRecord,
  body: Record<string, unknown>,
): NewDetection {
  const { store } = context;
  const input = new BodyReader(body);

  const timestampText = input.string('timestamp', true);
  const timestampMs = timestampText === undefined ? undefined : parseTimestamp(timestampText, station.timezone);
  if (timestampText !== undefined && timestampMs === null) input.add('timestamp', MESSAGES.invalid);
  input.string('commonName', true);
  const scientificName = input.string('scientificName', true);
  const species = scientificName === undefined ? undefined : store.species.byScientificName(scientificName);
  if (scientificName !== undefined && !species) input.add('species', MESSAGES.mustExist);

  const lat = input.number('lat', { min: -90, max: 90 }) ?? station.lat;
  const lon = input.number('lon', { min: -180, max: 180 }) ?? station.lon;
  const confidence = input.number('confidence', { min: 0, max: 1 }) ?? 0;

  const soundscapeId = input.integer('soundscapeId');
  const soundscape = soundscapeId === undefined ? undefined : store.soundscapes.byId(soundscapeId);
  // A soundscape the `lose-soundscape` lie lost was accepted: its detections are too, without it.
  const lost = soundscapeId === undefined || soundscape ? undefined : context.faults.lies.lostSoundscape(soundscapeId);
  const heard = soundscape ?? lost;
  if (soundscapeId !== undefined && heard?.stationId !== station.id) input.add('soundscapeId', MESSAGES.mustExist);
  const recording =
    heard?.stationId === station.id
      ? { startMs: heard.timestampMs, durationSeconds: heard.duration, zone: station.timezone }
      : undefined;
  const start = input.secondsInto('soundscapeStartTime', recording);
  const end = input.secondsInto('soundscapeEndTime', recording, { endsPastRecording: true });
  if (start !== undefined && end !== undefined && end < start) input.add('soundscapeEndTime', MESSAGES.invalid);

  const algorithm = input.string('algorithm') ?? DEFAULT_ALGORITHM;
  const behaviorField = input.pick('behavior_key', 'behaviorKey');
  const behaviorKey = input.string(behaviorField);
  if (
    behaviorKey !== undefined &&
    (!(BAT_BEHAVIOR_KEYS as readonly string[]).includes(behaviorKey) || (species && species.classification !== 'bat'))
  ) {
    input.add(behaviorField, MESSAGES.invalid);
  }
  const behaviorConfidence = input.number(input.pick('behavior_confidence', 'behaviorConfidence'), { min: 0, max: 1 });
  const shortlist = readShortlist(context, input);
  const metadata = input.raw('metadata');

  if (input.failed || !species || timestampMs === undefined || timestampMs === null) {
    throw validationFailed(input.errors);
  }
  const quality = qualityOf(context.seed, species.scientificName, lat, lon, confidence);
  const startTime = soundscape ? (start ?? 0) : null;
  return {
    stationId: station.id,
    speciesId: species.id,
    timestampMs,
    lat,
    lon,
    confidence,
    ...quality,
    algorithm,
    metadata: metadata ?? null,
    mode: soundscape?.mode ?? defaultModeOf(station),
    soundscapeId: soundscape ? soundscape.id : null,
    soundscapeStartTime: startTime,
    soundscapeEndTime: soundscape ? (end ?? startTime! + SEGMENT_SECONDS) : null,
    behaviorKey: (behaviorKey as BatBehaviorKey | undefined) ?? null,
    behaviorConfidence: behaviorKey === undefined ? null : (behaviorConfidence ?? null),
    shortlist,
  };
}

function readShortlist(context: EmulatorContext, input: BodyReader): ShortlistItem[] | null {
  const raw = input.raw('shortlist');
  if (raw === undefined) return null;
  const entries = typeof raw === 'string' ? safeJson(raw) : raw;
  if (!Array.isArray(entries)) {
    input.add('shortlist', MESSAGES.invalid);
    return null;
  }
  const items: ShortlistItem[] = [];
  for (const entry of entries as unknown[]) {
    const e = (entry ?? {}) as Record<string, unknown>;
    const species =
      typeof e.speciesId === 'number' || typeof e.speciesId === 'string'
        ? context.store.species.byId(Number(e.speciesId))
        : typeof e.scientificName === 'string'
          ? context.store.species.byScientificName(e.scientificName)
          : undefined;
    const weight = Number(e.weight);
    if (!species || !Number.isFinite(weight) || weight < 0 || weight > 1) {
      input.add('shortlist', MESSAGES.invalid);
      return null;
    }
    items.push({ speciesId: species.id, weight });
  }
  return items;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
