import type { AddressInfo } from 'node:net';
import { buildEmulatorApp, type EmulatorApp } from './app.js';
import type { EmulatorEvents } from './events.js';
import type { Lie } from './faults/lies.js';
import type { FaultSpec } from './faults/spec.js';
import type { EmulatorOptions } from './options.js';
import type { EmulatorStore } from './store/index.js';

export { buildEmulatorApp, type EmulatorApp } from './app.js';
export type { EmulatorContext } from './context.js';
export { EmulatorOptionError } from './errors.js';
export { EmulatorEvents, type EmulatorEventMap } from './events.js';
export type { Lie } from './faults/lies.js';
export { FAULT_KEYS, describeFaults, normalizeFaults, parseFaultString, type FaultSpec, type NormalizedFaults } from './faults/spec.js';
export {
  DEFAULT_ID_OFFSET,
  DEFAULT_LABELS_FILE,
  DEFAULT_LOCATION,
  DEFAULT_STATION_CONFIG,
  type EmulatorLogger,
  type EmulatorOptions,
  type StationSeed,
} from './options.js';
export { certaintyOf, probabilityOf, qualityOf, scoreOf, CERTAINTY_THRESHOLDS } from './scoring.js';
export { GLOBAL_LOOKUP_SINCE_MS } from './routes/global-detections.js';
export { DetectionPresenter } from './present/detection.js';
export { presentSoundscape } from './present/soundscape.js';
export { fullSpecies, speciesRef } from './present/species.js';
export { formatTimestamp, parseTimestamp } from './time.js';
export { EmulatorStore, ID_STRIDES } from './store/index.js';
export type * from './store/index.js';

export interface RunningEmulator {
  /** Base URL, e.g. `http://127.0.0.1:38471`; REST V1 is under `${url}/api/v1`. */
  url: string;
  port: number;
  /** The fastify instance (with `app.emulator`, the context the routes share). */
  app: EmulatorApp;
  store: EmulatorStore;
  /** `events.on('detection', (d) => ...)` for every stored detection. */
  events: EmulatorEvents;
  /** Replaces the fault spec at runtime (null turns faults off); the fault generator restarts from the seed. */
  setFaults(spec: string | FaultSpec | null): void;
  /** Every lie told since start (`lose-*`, `alter-*`, `second-uploader` faults), oldest first. */
  lies(): readonly Lie[];
  /** Stops listening, cuts open connections (including ones held by timeout faults), closes the store. */
  close(): Promise<void>;
}

/** Starts the local service and resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const app = await buildEmulatorApp(options);
  const context = app.emulator;
  const host = options.host ?? '127.0.0.1';
  try {
    await app.listen({ host, port: options.port ?? 0 });
  } catch (err) {
    await app.close();
    throw err;
  }
  const { port } = app.server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const url = `http://${urlHost}:${port}`;
  context.mediaUrl = (options.mediaUrl ?? `${url}/media`).replace(/\/+$/, '');
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    app,
    store: context.store,
    events: context.events,
    setFaults: (spec) => context.faults.set(spec),
    lies: () => context.faults.lies.told,
    close: () => (closing ??= app.close()),
  };
}
