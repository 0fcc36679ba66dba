import type { Config } from '../../src/config/schema.js';
import { ConfigStore } from '../../src/daemon/config-store.js';
import { createStationContext, type ContextOptions, type StationContext } from '../../src/daemon/context.js';
import type { IngestContext } from '../../src/ingest/context.js';
import type { Logger } from '../../src/log/index.js';
import type { Queue } from '../../src/queue/index.js';
import type { DaemonLock } from '../../src/system/daemon-lock.js';

/**
 * A daemon's station context over a real queue, for a test that builds one component
 * alone. Nothing was read or locked before it: a component that needs the ingest context,
 * the webhook or the lock is tested through the whole daemon (agent-world.ts) instead.
 */
export function stationContext(config: Config, queue: Queue, log: Logger, options: ContextOptions = {}): StationContext {
  const prepared = { ingest: undefined as unknown as IngestContext, webhook: null, lock: undefined as unknown as DaemonLock };
  return createStationContext({ config: new ConfigStore(config, null, {}, log), queue, log, prepared, options });
}
