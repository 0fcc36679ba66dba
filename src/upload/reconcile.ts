import type { Detection, DetectionListQuery, DetectionListResponse, Soundscape, SoundscapeListQuery, SoundscapeListResponse, SpeciesLookupResponse } from '../wire/types.js';

/**
 * Reconciliation of outcome-unknown uploads. When a request timed out or the
 * connection reset after it was sent, the service may have stored it anyway (the
 * real service times out while the data still arrives). Posting again blindly
 * would duplicate, so before any new post we look for the item at the service and
 * adopt its id if it is there.
 *
 * A soundscape is matched by its start instant (and duration when both know it);
 * a detection by its instant, species, confidence and offsets within the audio.
 * Ids the queue already holds for other items are never adopted twice.
 */
export interface ReconcileApi {
  listSoundscapes(query: SoundscapeListQuery, signal?: AbortSignal): Promise<SoundscapeListResponse>;
  listDetections(query: DetectionListQuery, signal?: AbortSignal): Promise<DetectionListResponse>;
  lookupSpecies(species: string[], fields?: string[], signal?: AbortSignal): Promise<SpeciesLookupResponse>;
}

export interface SoundscapeCandidate {
  /** ISO 8601 with offset, as posted. */
  timestamp: string;
  durationS: number | null;
  /** Bytes of the uploaded file: tells apart two streams recorded in the same second. */
  filesize?: number | null;
}

export interface DetectionCandidate {
  timestamp: string;
  scientificName: string;
  commonName: string;
  confidence: number;
  startS: number;
  endS: number;
  soundscapeRemoteId: number | null;
}

/** Two instants closer than this are the same (the service keeps milliseconds). */
const SAME_INSTANT_MS = 1;
/** The listing window around the instant, so a service that rounds to seconds still matches. */
const WINDOW_MS = 1_000;
const PAGE = 100;
/** Never page through more than this many items looking for one. */
const MAX_PAGES = 5;

export async function findSoundscape(
  api: ReconcileApi,
  item: SoundscapeCandidate,
  isTaken: (remoteId: number) => boolean,
  signal?: AbortSignal,
): Promise<number | null> {
  const at = Date.parse(item.timestamp);
  const { from, to } = window(item.timestamp, at);
  return findInPages(
    async (cursor) => (await api.listSoundscapes({ from, to, limit: PAGE, cursor }, signal)).soundscapes,
    (page) => {
      const matches = page.filter((s) => soundscapeMatches(s, at, item) && !isTaken(s.id));
      // Two analyzerpi streams (RTSP_1, RTSP_2) can start in the same second: the size decides.
      return matches.find((s) => item.filesize != null && Number(s.filesize) === item.filesize) ?? matches[0];
    },
  );
}

/**
 * The id of the first listed item `pick` chooses, reading the listing page by page
 * (the cursor is the last id of a page) until a short page or MAX_PAGES.
 */
async function findInPages<T extends { id: number }>(
  list: (cursor: number | undefined) => Promise<readonly T[]>,
  pick: (page: readonly T[]) => T | undefined,
): Promise<number | null> {
  let cursor: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const items = await list(cursor);
    const found = pick(items);
    if (found) return found.id;
    if (items.length < PAGE) return null;
    cursor = items[items.length - 1]?.id;
  }
  return null;
}

function soundscapeMatches(s: Soundscape, at: number, item: SoundscapeCandidate): boolean {
  if (Math.abs(Date.parse(s.timestamp) - at) > SAME_INSTANT_MS) return false;
  if (item.durationS == null || s.duration == null) return true;
  // The service reports whole (or float) seconds of the same audio.
  return Math.abs(Number(s.duration) - item.durationS) <= 1;
}

/** Species ids by `<scientific>_<common>`, cached for the process (a station sees few species). */
export class SpeciesIdCache {
  private readonly ids = new Map<string, number | null>();
  private static readonly MAX = 2_000;

  async idFor(api: ReconcileApi, scientificName: string, commonName: string, signal?: AbortSignal): Promise<number | null> {
    const key = `${scientificName}_${commonName}`;
    if (this.ids.has(key)) return this.ids.get(key) ?? null;
    let id: number | null = null;
    try {
      const res = await api.lookupSpecies([key], ['id'], signal);
      const found = res.species[key];
      id = typeof found?.id === 'number' ? found.id : null;
    } catch {
      // The lookup is an optimisation; without it the listing is filtered locally by name.
      return null;
    }
    if (this.ids.size >= SpeciesIdCache.MAX) this.ids.clear();
    this.ids.set(key, id);
    return id;
  }
}

export async function findDetection(
  api: ReconcileApi,
  item: DetectionCandidate,
  species: SpeciesIdCache,
  isTaken: (remoteId: number) => boolean,
  signal?: AbortSignal,
): Promise<number | null> {
  const at = Date.parse(item.timestamp);
  const { from, to } = window(item.timestamp, at);
  const speciesId = await species.idFor(api, item.scientificName, item.commonName, signal);
  return findInPages(
    async (cursor) => {
      const query: DetectionListQuery = { from, to, limit: PAGE, cursor };
      if (speciesId != null) query.speciesId = speciesId;
      // `unfiltered_detections` is the service's fallback when nothing matched: never match against it.
      return (await api.listDetections(query, signal)).detections;
    },
    (page) => page.find((d) => detectionMatches(d, at, item) && !isTaken(d.id)),
  );
}

function detectionMatches(d: Detection, at: number, item: DetectionCandidate): boolean {
  if (Math.abs(Date.parse(d.timestamp) - at) > SAME_INSTANT_MS) return false;
  if (d.species?.scientificName?.toLowerCase() !== item.scientificName.toLowerCase()) return false;
  if (typeof d.confidence === 'number' && Math.abs(d.confidence - item.confidence) > 1e-4) return false;
  const ref = d.soundscape;
  if (item.soundscapeRemoteId != null && ref) {
    if (typeof ref.startTime === 'number' && Math.abs(ref.startTime - item.startS) > 1e-3) return false;
  }
  return true;
}

function window(timestamp: string, at: number): { from: string; to: string } {
  if (Number.isNaN(at)) throw new RangeError(`cannot reconcile an item with an invalid timestamp: ${timestamp}`);
  return { from: new Date(at - WINDOW_MS).toISOString(), to: new Date(at + WINDOW_MS).toISOString() };
}
