import { setTimeout as wait } from 'node:timers/promises';
import type { Config } from '../config/index.js';
import { redactUrl } from '../wire/redact.js';
import { errorCode } from '../errors.js';
import type { Logger } from '../log/index.js';
import type { Queue } from '../queue/index.js';
import type { RuntimeError, RuntimeSnapshot } from '../runtime/snapshot.js';
import { reconnectDelay, type BackoffOptions } from '../system/backoff.js';
import { connectBroker, type BrokerConnection } from './connection.js';
import { discoveryMessages } from './discovery.js';
import { detectionsToPublish, markUpdatesPublished, updatesToPublish } from '../queue/index.js';
import { recordPublished } from './outbox.js';
import { brokerSettings, safeMessage } from './options.js';
import { detectionPayload, updatePayload } from './payloads.js';
import { activatePublishing, readPresence, rememberRetained } from './presence.js';
import { clearRetained } from './retract.js';
import { statePayload, stateSignature } from './state.js';
import { OFFLINE, ONLINE, retainFor, stationRef, stationTopics } from './topics.js';

/**
 * The MQTT publisher: a loop of its own, driven by the queue, never by memory.
 *
 * - Connect (a fresh client each time, no automatic reconnect), announce `online`
 *   (retained; the last will says `offline`), publish Home Assistant discovery.
 * - Drain: the oldest unpublished detections in batches of {@link BATCH_SIZE}; a
 *   batch is marked published in the queue only once the broker acknowledged every
 *   message of it. Then the updates of uploaded (or dropped) detections, the same way.
 *   Then the state, when it changed.
 * - Wait for `notify()` (a detection queued, an upload done) or the poll interval.
 * - A lost connection ends the session; the next connect comes after a backoff of
 *   its own (1 s doubling to a minute, see reconnectDelay), which notify() does not cut
 *   short. The uploader is never waited for, and never waits for this.
 *
 * At most one batch is in flight, and nothing is handed to a disconnected client:
 * memory does not grow with a backlog, however long the broker was away.
 */
export interface MqttObserver {
  published?(kind: MqttMessageKind, count: number): void;
  failed?(stage: 'connect' | 'publish'): void;
}

export type MqttMessageKind = 'detection' | 'update' | 'state' | 'status' | 'discovery';

/** What `status` shows of the publisher (in the daemon's runtime snapshot). */
export interface MqttRuntime {
  connected: boolean;
  broker: string;
  lastPublishAt: number | null;
  lastError: RuntimeError | null;
}

export interface MqttPublisherOptions {
  config: Config;
  queue: Queue;
  log: Logger;
  /** The daemon's snapshot (pauses, circuit, last upload) for the state topic. */
  snapshot: () => RuntimeSnapshot | null;
  observer?: MqttObserver;
  batchSize?: number;
  /** Longest wait between passes when nothing notifies (the state's "today" rolls over, too). */
  pollMs?: number;
  /** The state is published at least this often, changed or not. */
  stateHeartbeatMs?: number;
  backoff?: BackoffOptions;
}

const BATCH_SIZE = 50;
const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1_000, maxMs: 60_000 };

export class MqttPublisher {
  private readonly topics;
  private readonly batchSize: number;
  private stopping = false;
  private loop: Promise<void> | null = null;
  /** Ends the current wait early: set by every wait (stop ends any), and by a connected wait for notify(). */
  private wakeOnStop: (() => void) | null = null;
  private wakeOnNotify: (() => void) | null = null;
  /** A notify() that came while a pass ran: the next connected wait returns at once. */
  private notified = false;
  private attempt = 0;
  private conn: BrokerConnection | null = null;
  private displayUrl: string;
  private lastPublishAt: number | null = null;
  private lastError: RuntimeError | null = null;
  private lastState = { signature: '', at: 0 };

  constructor(private readonly options: MqttPublisherOptions) {
    this.topics = stationTopics(options.config.mqtt);
    this.batchSize = options.batchSize ?? BATCH_SIZE;
    // Shown before the first connect too (status): never the raw URL, which may hold a password.
    this.displayUrl = options.config.mqtt.url ? redactUrl(options.config.mqtt.url) : '';
  }

  /** Starts publishing. The first start after MQTT was off skips what was queued meanwhile. */
  start(): void {
    const { skipped } = activatePublishing(this.options.queue);
    if (skipped > 0) this.options.log.info({ skipped }, 'mqtt: publishing starts with new detections (those queued while MQTT was off are not replayed)');
    this.loop ??= this.run();
  }

  /** Something changed in the queue: publish it now rather than at the next poll. */
  notify(): void {
    this.notified = true;
    this.wakeOnNotify?.();
  }

  status(): MqttRuntime {
    return { connected: this.conn?.isOpen ?? false, broker: this.displayUrl, lastPublishAt: this.lastPublishAt, lastError: this.lastError };
  }

  /** Says `offline` (retained) when connected, disconnects, and ends the loop. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeOnStop?.();
    // A connect in progress may take up to its timeout; the stop does not wait for it.
    await Promise.race([this.loop, delay(5_000)]);
  }

  private readonly warned = new Set<string>();

  private async run(): Promise<void> {
    const { config, log, observer } = this.options;
    while (!this.stopping) {
      let conn: BrokerConnection | null = null;
      let connectedAt: number | null = null;
      try {
        const settings = await brokerSettings(config.mqtt, {
          will: { topic: this.topics.status, payload: Buffer.from(OFFLINE), qos: config.mqtt.qos, retain: true },
        });
        this.displayUrl = settings.displayUrl;
        // Settings are read at each connect: a warning is logged once, not at every reconnect.
        for (const w of settings.warnings) if (!this.warned.has(w) && this.warned.add(w)) log.warn(`mqtt: ${w}`);
        try {
          conn = await connectBroker(settings);
        } catch (err) {
          observer?.failed?.('connect');
          throw err;
        }
        this.conn = conn;
        log.info({ broker: settings.displayUrl }, 'mqtt: connected');
        connectedAt = performance.now();
        await this.session(conn);
      } catch (err) {
        if (conn && !this.stopping) observer?.failed?.('publish');
        this.lastError = { message: safeMessage(err), code: errorCode(err), at: Date.now() };
        if (!this.stopping) log.warn({ code: this.lastError.code }, `mqtt: ${this.lastError.message}`);
      } finally {
        this.conn = null;
        if (conn) await this.close(conn);
      }
      if (this.stopping) break;
      const backoff = this.options.backoff ?? DEFAULT_BACKOFF;
      // Only a connection that held for a while starts the backoff over: a broker that
      // takes each connect and drops it at once (a client id another station also uses)
      // is retried as slowly as one that refuses it.
      if (connectedAt !== null && performance.now() - connectedAt >= backoff.maxMs) this.attempt = 0;
      await this.sleep(reconnectDelay(this.attempt++, backoff), { wakeOnNotify: false });
    }
  }

  private async session(conn: BrokerConnection): Promise<void> {
    const { config, queue } = this.options;
    await conn.publish(this.topics.status, ONLINE, { qos: config.mqtt.qos, retain: true });
    this.published('status', 1);
    rememberRetained(queue, this.displayUrl, { retained: [this.topics.status] });
    await this.syncDiscovery(conn);
    this.lastState = { signature: '', at: 0 };
    while (!this.stopping && conn.isOpen) {
      const more = await this.pass(conn);
      if (more || this.stopping) continue;
      await this.sleep(this.options.pollMs ?? 5_000, { until: conn.closed });
    }
    if (!conn.isOpen && !this.stopping) throw await conn.closed;
  }

  /** One step of work; true when there is more to do at once. */
  private async pass(conn: BrokerConnection): Promise<boolean> {
    const { config, queue } = this.options;
    const { qos } = config.mqtt;
    const zone = config.station.timezone;
    const station = stationRef(config);
    const retain = retainFor(config.mqtt, 'detection');

    const detections = detectionsToPublish(queue, this.batchSize);
    if (detections.length > 0) {
      await Promise.all(detections.map((d) => conn.publish(this.topics.detection, JSON.stringify(detectionPayload(d, station)), { qos, retain })));
      recordPublished(queue, detections, zone);
      this.published('detection', detections.length);
      if (retain) rememberRetained(queue, this.displayUrl, { retained: [this.topics.detection] });
      return true;
    }
    const updates = updatesToPublish(queue, this.batchSize);
    if (updates.length > 0) {
      await Promise.all(updates.map((u) => conn.publish(this.topics.detectionUpdate, JSON.stringify(updatePayload(u, station)), { qos, retain })));
      markUpdatesPublished(queue, updates.map((u) => u.id));
      this.published('update', updates.length);
      if (retain) rememberRetained(queue, this.displayUrl, { retained: [this.topics.detectionUpdate] });
      return true;
    }
    const state = statePayload(queue, safeSnapshot(this.options.snapshot), zone);
    const signature = stateSignature(state);
    const now = Date.now();
    if (signature !== this.lastState.signature || now - this.lastState.at >= (this.options.stateHeartbeatMs ?? 300_000)) {
      const retainState = retainFor(config.mqtt, 'state');
      await conn.publish(this.topics.state, JSON.stringify(state), { qos, retain: retainState });
      this.lastState = { signature, at: now };
      this.published('state', 1);
      if (retainState) rememberRetained(queue, this.displayUrl, { retained: [this.topics.state] });
    }
    return false;
  }

  /** Publishes discovery (mqtt.discovery) and removes entities published before that are no longer wanted. */
  private async syncDiscovery(conn: BrokerConnection): Promise<void> {
    const { config, queue } = this.options;
    const wanted = config.mqtt.discovery ? discoveryMessages(config) : [];
    const wantedTopics = new Set(wanted.map((m) => m.topic));
    const stale = readPresence(queue).discoveryTopics.filter((t) => !wantedTopics.has(t));
    if (stale.length > 0) {
      await clearRetained(conn, queue, { discovery: stale }, config.mqtt.qos);
      this.options.log.info({ entities: stale.length }, 'mqtt: Home Assistant discovery removed');
    }
    if (wanted.length === 0) return;
    // Remembered before they are sent: a crash in between leaves a topic to clear, never an entity nobody knows of.
    rememberRetained(queue, this.displayUrl, { discovery: [...wantedTopics] });
    await Promise.all(wanted.map((m) => conn.publish(m.topic, JSON.stringify(m.payload), { qos: config.mqtt.qos, retain: true })));
    this.published('discovery', wanted.length);
  }

  private published(kind: MqttMessageKind, count: number): void {
    this.lastPublishAt = Date.now();
    this.options.observer?.published?.(kind, count);
  }

  private async close(conn: BrokerConnection): Promise<void> {
    if (this.stopping && conn.isOpen) {
      // A clean disconnect does not fire the last will: say offline ourselves.
      await Promise.race([conn.publish(this.topics.status, OFFLINE, { qos: this.options.config.mqtt.qos, retain: true }), delay(2_000)]).catch(() => {});
    }
    await conn.end().catch(() => {});
  }

  /**
   * Waits `ms`, or less when stopped or `until` settles, or (unless `wakeOnNotify` is
   * false) when notified. The reconnect backoff is not woken by notify(): a detection
   * is queued or an upload finishes every few seconds on a busy day, and each would
   * otherwise be a connect to a broker that refuses us (a wrong password got 17 connects
   * in 11 s). A notify() during the backoff is kept for the session that follows.
   */
  private sleep(ms: number, options: { until?: Promise<unknown>; wakeOnNotify?: boolean } = {}): Promise<void> {
    const wakeOnNotify = options.wakeOnNotify ?? true;
    if (this.stopping || (wakeOnNotify && this.notified)) {
      if (wakeOnNotify) this.notified = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined = undefined;
      const done = () => {
        clearTimeout(timer);
        if (wakeOnNotify) this.notified = false;
        resolve();
      };
      timer = setTimeout(done, ms);
      this.wakeOnStop = done;
      if (wakeOnNotify) this.wakeOnNotify = done;
      void options.until?.then(done);
    }).finally(() => {
      this.wakeOnStop = null;
      this.wakeOnNotify = null;
    });
  }
}

function safeSnapshot(snapshot: () => RuntimeSnapshot | null): RuntimeSnapshot | null {
  try {
    return snapshot();
  } catch {
    return null;
  }
}

/** A wait that does not keep the process alive (a stop must not wait on it). */
const delay = (ms: number): Promise<void> => wait(ms, undefined, { ref: false });
