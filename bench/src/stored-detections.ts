import { startEmulator } from '@station-agent/emulator';
import { BENCH_TOKEN, STATION } from './service-process.js';

/**
 * The local service in the bench's own process, counting the detections it stores: its
 * `detection` event marks the moment each one is committed, which is when a section's
 * measurement of the agent ends.
 */
export interface CountingService {
  url: string;
  port: number;
  /** Detections stored so far. */
  readonly stored: number;
  /**
   * Resolves with `performance.now()` at the moment `target` detections are stored;
   * rejects after `timeoutMs` with `why(missing)`. One wait at a time; `close` ends it
   * without a verdict.
   */
  untilStored(target: number, timeoutMs: number, why: (missing: number) => string): Promise<number>;
  /** The soundscapes stored so far and their bytes (the FLACs as the service received them). */
  soundscapes(): { count: number; bytes: number };
  close(): Promise<void>;
}

/**
 * `port`: 0 for a free one; a given one brings a stopped service back where the agent looks for it.
 * `mediaDir`: where it keeps the audio it receives (default: a temporary folder, removed at close).
 */
export async function startCountingService(port = 0, mediaDir?: string): Promise<CountingService> {
  const emulator = await startEmulator({ port, stations: [{ token: BENCH_TOKEN, name: 'Bench station', ...STATION }], ...(mediaDir !== undefined && { dataDir: mediaDir }) });
  let stored = 0;
  let onStored: () => void = () => {};
  let timer: NodeJS.Timeout | undefined;
  emulator.events.on('detection', () => {
    stored++;
    onStored();
  });
  return {
    url: emulator.url,
    port: emulator.port,
    get stored() {
      return stored;
    },
    untilStored: (target, timeoutMs, why) =>
      new Promise<number>((resolve, reject) => {
        timer = setTimeout(() => reject(new Error(why(target - stored))), timeoutMs);
        onStored = () => {
          if (stored < target) return;
          clearTimeout(timer);
          onStored = () => {};
          resolve(performance.now());
        };
        onStored();
      }),
    soundscapes: () => {
      const station = emulator.store.stations.byToken(BENCH_TOKEN);
      const all = station ? emulator.store.soundscapes.list({ stationId: station.id }, { limit: 1_000_000 }) : [];
      return { count: all.length, bytes: all.reduce((sum, s) => sum + s.filesize, 0) };
    },
    close: () => {
      clearTimeout(timer);
      onStored = () => {};
      return emulator.close();
    },
  };
}
