import type { WebhookOptions } from '../alerts/webhook.js';
import { createServiceClient, type ServiceClient } from '../api/index.js';
import { createFlacEncoder, type FlacCompressionLevel, type FlacEncoder } from '../audio/flac-encoder.js';
import type { Config } from '../config/schema.js';
import { SoundscapePreparer } from '../encode/soundscape-preparer.js';
import type { IngestContext } from '../ingest/context.js';
import type { Logger } from '../log/index.js';
import { getMeta, metaLastWrittenAt, setMeta, type Queue } from '../queue/index.js';
import type { ClockSyncState } from '../system/clock.js';
import type { DaemonLock } from '../system/daemon-lock.js';
import { ExpiryClock } from '../queue/expiry-clock.js';
import { LinkPolicy, type LinkSettings } from '../upload/link-policy.js';
import type { ConfigStore } from './config-store.js';
import { EventBus } from './events.js';
import { StateRegistry } from './state.js';

/**
 * What every daemon component is built from, and the only way components reach each
 * other (zigbee2mqtt's `extensionArgs`): a component's constructor takes this and nothing
 * else, reads the others' state in `state` and talks to them on `bus`.
 */
export interface StationContext {
  /** The running config; a reload hands each component the changed keys (`ConfigStore`). */
  readonly config: ConfigStore;
  readonly queue: Queue;
  readonly log: Logger;
  readonly bus: EventBus;
  /** The clock of the queue's expiries and due times (queue/expiry-clock.ts). */
  readonly expiry: ExpiryClock;
  /** What each component publishes about itself; the runtime snapshot is its content. */
  readonly state: StateRegistry;
  /** The service's client: one keep-alive pool for the uploader and config sync. */
  readonly client: ServiceClient;
  /** Upload windows, data budget and bandwidth cap: asked by the uploader and the alerts. */
  readonly link: LinkPolicy;
  /** The encode step between the queue and the upload (src/encode): the encoder component runs it, the uploader asks it. */
  readonly encode: EncodeStep;
  /** What was read or taken before any component, so a bad file or a held lock fails the start (prepare.ts). */
  readonly prepared: { ingest: IngestContext; webhook: WebhookOptions | null; lock: DaemonLock };
  readonly options: ContextOptions;
}

/** Seams for tests, beside the config. */
export interface ContextOptions {
  /** The wall clock under the expiry clock (upload windows, data budget, expiries, alerts); tests move it. */
  now?: () => number;
  /** How often the alert conditions are checked. Default 10 s. */
  alertCheckMs?: number;
  /** How often the audit looks whether one is due. Default 60 s. */
  auditCheckMs?: number;
  /** The clock gate's question to the system and its monotonic clock (system/clock.ts by default). */
  clock?: { probe?: () => Promise<ClockSyncState>; monotonic?: () => number };
}

export interface EncodeStep {
  readonly encoder: FlacEncoder;
  /** WAVs encoded into memory just before their upload. */
  readonly soundscapes: SoundscapePreparer;
  /** The recordings being encoded, by the preparer or the spool compaction: the two never take the same one. */
  readonly busy: Set<number>;
}

export interface ContextInputs {
  config: ConfigStore;
  queue: Queue;
  log: Logger;
  prepared: StationContext['prepared'];
  options?: ContextOptions;
}

/** Builds the context of one daemon run; the token of a reload reaches the client here, before any component (the config's load put it in the secret registry). */
export function createStationContext(inputs: ContextInputs): StationContext {
  const { config: store, queue, log, prepared, options = {} } = inputs;
  const config = store.current;
  const bus = new EventBus();
  const state = new StateRegistry();
  // service.timeoutMs is the limit of every request, soundscape uploads included
  // (the client's own upload default of 120 s would otherwise hold a slot that long).
  const { baseUrl, timeoutMs, token } = config.service;
  const client = createServiceClient({ baseUrl, token: token ?? '', timeoutMs, uploadTimeoutMs: timeoutMs, connections: config.upload.concurrency });
  const expiry = expiryClock(queue, log, options.now ?? Date.now, () => state.get('clock') === 'synchronized');
  const link = new LinkPolicy(
    linkSettings(config),
    { load: () => getMeta(queue, 'audioBudget'), save: (value) => setMeta(queue, 'audioBudget', value) },
    expiry.now,
  );
  store.subscribe((next, changed) => {
    const token = next.service.token;
    if (!token || !changed.has('service.token')) return;
    client.setToken(token);
  });
  return { config: store, queue, log, bus, expiry, state, client, link, encode: encodeStep(config, log, bus), prepared, options };
}

export function linkSettings(config: Config): LinkSettings {
  const { windows, windowsAudioOnly, audioBytesPerSec, audioBytesPerDay } = config.upload;
  return { windows, windowsAudioOnly, audioBytesPerSec, audioBytesPerDay, zone: config.station.timezone };
}

function encodeStep(config: Config, log: Logger, bus: EventBus): EncodeStep {
  const encoder = createFlacEncoder({
    engine: config.upload.flacEncoder,
    // The schema bounds the level to a whole number from 0 to 8.
    compressionLevel: config.upload.flacCompressionLevel as FlacCompressionLevel,
    // STREAMINFO without the MD5 where libFLAC's addon allows: a third of a level-0
    // encode's CPU; each frame's CRC still guards the FLAC (flac-encode-job.ts, NO_MD5).
    md5: false,
  });
  const busy = new Set<number>();
  return { encoder, busy, soundscapes: new SoundscapePreparer(encoder, log, () => bus.emit('sendable'), { busy }) };
}

/**
 * Expiries (species gate, spool retention, the budget's day) never follow a clock jumped
 * far ahead of the queue's last write (queue/expiry-clock.ts). Made before anything writes.
 */
function expiryClock(queue: Queue, log: Logger, wall: () => number, synced: () => boolean): ExpiryClock {
  return new ExpiryClock({
    wall,
    lastKnown: metaLastWrittenAt(queue),
    synced,
    onJump: (at, reference) =>
      log.warn(
        `the clock (${new Date(at).toISOString()}) is more than a day ahead of the queue's last known time (${new Date(reference).toISOString()}): expiries (species gate, spool retention, the data budget's day) follow the last known time until the system reports NTP sync or the clock has held for a day`,
      ),
  });
}
