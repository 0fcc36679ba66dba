import type { EmulatorContext } from '../context.js';
import type { SoundscapeRecord, SpeciesRecord, StationRecord } from '../store/index.js';

/**
 * What every resolver of one GraphQL operation works with: the emulator, the base URL
 * the client used, one clock reading (so every period of a query means the same
 * window), and small caches so a page of detections loads each station and species once.
 */
export interface GqlContext {
  emulator: EmulatorContext;
  /** e.g. `http://127.0.0.1:38471`, from the request's Host header. */
  baseUrl: string;
  nowMs: number;
  station: (id: number) => StationRecord | undefined;
  species: (id: number) => SpeciesRecord | undefined;
  soundscape: (id: number) => SoundscapeRecord | undefined;
  /** Every station (small table), for the continent and country filters. */
  allStations: () => readonly StationRecord[];
  /** Forgets the caches and reads the clock again: a subscription does this before each event. */
  refresh: () => void;
}

function cached<T>(caches: Map<number, unknown>[], load: (id: number) => T | undefined): (id: number) => T | undefined {
  const cache = new Map<number, T | undefined>();
  caches.push(cache);
  return (id) => {
    if (!cache.has(id)) cache.set(id, load(id));
    return cache.get(id);
  };
}

export function createGqlContext(emulator: EmulatorContext, baseUrl: string): GqlContext {
  const { store } = emulator;
  const caches: Map<number, unknown>[] = [];
  let stations: readonly StationRecord[] | undefined;
  const context: GqlContext = {
    emulator,
    baseUrl,
    nowMs: emulator.now(),
    station: cached(caches, (id) => store.stations.byId(id)),
    species: cached(caches, (id) => store.species.byId(id)),
    soundscape: cached(caches, (id) => store.soundscapes.byId(id)),
    allStations: () => (stations ??= store.stations.all()),
    refresh: () => {
      for (const cache of caches) cache.clear();
      stations = undefined;
      context.nowMs = emulator.now();
    },
  };
  return context;
}

/** The base URL of a request: `http://<Host header>`, or the given fallback. */
export function baseUrlOf(host: string | undefined, fallback = 'http://127.0.0.1'): string {
  return host ? `http://${host}` : fallback;
}
