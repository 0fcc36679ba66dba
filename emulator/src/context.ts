import type { EmulatorEvents } from './events.js';
import type { FaultInjector } from './faults/injector.js';
import type { EmulatorStore } from './store/index.js';

/** What every route of the local service works with. */
export interface EmulatorContext {
  store: EmulatorStore;
  events: EmulatorEvents;
  faults: FaultInjector;
  /** Seed of the calculated probabilities and of fault injection. */
  seed: number;
  /** Current time in epoch ms (periods, creation times). */
  now: () => number;
  /** Base of every media URL (soundscape audio, species images), without a trailing slash. */
  mediaUrl: string;
  /** Uploaded audio lives under `<dataDir>/soundscapes/`. */
  dataDir: string;
  adminToken: string | undefined;
  /** Largest accepted soundscape upload, in bytes after decompression. */
  uploadLimitBytes: number;
}
