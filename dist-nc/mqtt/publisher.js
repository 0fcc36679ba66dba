import { setTimeout as wait } from 'node:timers/promises';
import { redactUrl } from '../wire/redact.js';
import { errorCode } from '../errors.js';
import { addLogSecrets } from '../log/index.js';
import { reconnectDelay } from '../system/backoff.js';
import { connectBroker } from './connection.js';
import { discoveryMessages } from './discovery.js';
import { detectionsToPublish, markUpdatesPublished, updatesToPublish } from '../queue/index.js';
import { recordPublished } from './outbox.js';
import { brokerSettings, safeMessage } from './options.js';
import { detectionPayload, updatePayload } from './payloads.js';
import { activatePublishing, readPresence, rememberRetained } from './presence.js';
import { clearRetained } from './retract.js';
import { statePayload, stateSignature } from './state.js';
import { OFFLINE, ONLINE, retainFor, stationRef, stationTopics } from './topics.js';
export const BATCH_SIZE = 50;
const DEFAULT_BACKOFF = { baseMs: 1_000, maxMs: 60_000 };
export class MqttPublisher {
    options;
    topics;
    batchSize;
    stopping = false;
    loop = null;
    wakeOnStop = null;
    wakeOnNotify = null;
    notified = false;
    attempt = 0;
    conn = null;
    displayUrl;
    lastPublishAt = null;
    lastError = null;
    lastState = { signature: '', at: 0 };
    constructor(options) {
        this.options = options;
        this.topics = stationTopics(options.config.mqtt);
        this.batchSize = options.batchSize ?? BATCH_SIZE;
        this.displayUrl = options.config.mqtt.url ? redactUrl(options.config.mqtt.url) : '';
    }
    start() {
        const { skipped } = activatePublishing(this.options.queue);
        if (skipped > 0)
            this.options.log.info({ skipped }, 'mqtt: publishing starts with new detections (those queued while MQTT was off are not replayed)');
        this.loop ??= this.run();
    }
    notify() {
        this.notified = true;
        this.wakeOnNotify?.();
    }
    status() {
        return { connected: this.conn?.isOpen ?? false, broker: this.displayUrl, lastPublishAt: this.lastPublishAt, lastError: this.lastError };
    }
    async stop() {
        this.stopping = true;
        this.wakeOnStop?.();
        await Promise.race([this.loop, delay(5_000)]);
    }
    warned = new Set();
    async run() {
        const { config, log, observer } = this.options;
        while (!this.stopping) {
            let conn = null;
            let secrets = [];
            let connectedAt = null;
            try {
                const settings = await brokerSettings(config.mqtt, {
                    will: { topic: this.topics.status, payload: Buffer.from(OFFLINE), qos: config.mqtt.qos, retain: true },
                });
                secrets = settings.secrets;
                this.displayUrl = settings.displayUrl;
                hideFromLog(log, secrets);
                for (const w of settings.warnings)
                    if (!this.warned.has(w) && this.warned.add(w))
                        log.warn(`mqtt: ${w}`);
                try {
                    conn = await connectBroker(settings);
                }
                catch (err) {
                    observer?.failed?.('connect');
                    throw err;
                }
                this.conn = conn;
                log.info({ broker: settings.displayUrl }, 'mqtt: connected');
                connectedAt = performance.now();
                await this.session(conn);
            }
            catch (err) {
                if (conn && !this.stopping)
                    observer?.failed?.('publish');
                this.lastError = { message: safeMessage(err, secrets), code: errorCode(err), at: Date.now() };
                if (!this.stopping)
                    log.warn({ code: this.lastError.code }, `mqtt: ${this.lastError.message}`);
            }
            finally {
                this.conn = null;
                if (conn)
                    await this.close(conn);
            }
            if (this.stopping)
                break;
            const backoff = this.options.backoff ?? DEFAULT_BACKOFF;
            if (connectedAt !== null && performance.now() - connectedAt >= backoff.maxMs)
                this.attempt = 0;
            await this.sleep(reconnectDelay(this.attempt++, backoff), { wakeOnNotify: false });
        }
    }
    async session(conn) {
        const { config, queue } = this.options;
        await conn.publish(this.topics.status, ONLINE, { qos: config.mqtt.qos, retain: true });
        this.published('status', 1);
        rememberRetained(queue, this.displayUrl, { retained: [this.topics.status] });
        await this.syncDiscovery(conn);
        this.lastState = { signature: '', at: 0 };
        while (!this.stopping && conn.isOpen) {
            const more = await this.pass(conn);
            if (more || this.stopping)
                continue;
            await this.sleep(this.options.pollMs ?? 5_000, { until: conn.closed });
        }
        if (!conn.isOpen && !this.stopping)
            throw await conn.closed;
    }
    async pass(conn) {
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
            if (retain)
                rememberRetained(queue, this.displayUrl, { retained: [this.topics.detection] });
            return true;
        }
        const updates = updatesToPublish(queue, this.batchSize);
        if (updates.length > 0) {
            await Promise.all(updates.map((u) => conn.publish(this.topics.detectionUpdate, JSON.stringify(updatePayload(u, station)), { qos, retain })));
            markUpdatesPublished(queue, updates.map((u) => u.id));
            this.published('update', updates.length);
            if (retain)
                rememberRetained(queue, this.displayUrl, { retained: [this.topics.detectionUpdate] });
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
            if (retainState)
                rememberRetained(queue, this.displayUrl, { retained: [this.topics.state] });
        }
        return false;
    }
    async syncDiscovery(conn) {
        const { config, queue } = this.options;
        const wanted = config.mqtt.discovery ? discoveryMessages(config) : [];
        const wantedTopics = new Set(wanted.map((m) => m.topic));
        const stale = readPresence(queue).discoveryTopics.filter((t) => !wantedTopics.has(t));
        if (stale.length > 0) {
            await clearRetained(conn, queue, { discovery: stale }, config.mqtt.qos);
            this.options.log.info({ entities: stale.length }, 'mqtt: Home Assistant discovery removed');
        }
        if (wanted.length === 0)
            return;
        rememberRetained(queue, this.displayUrl, { discovery: [...wantedTopics] });
        await Promise.all(wanted.map((m) => conn.publish(m.topic, JSON.stringify(m.payload), { qos: config.mqtt.qos, retain: true })));
        this.published('discovery', wanted.length);
    }
    published(kind, count) {
        this.lastPublishAt = Date.now();
        this.options.observer?.published?.(kind, count);
    }
    async close(conn) {
        if (this.stopping && conn.isOpen) {
            await Promise.race([conn.publish(this.topics.status, OFFLINE, { qos: this.options.config.mqtt.qos, retain: true }), delay(2_000)]).catch(() => { });
        }
        await conn.end().catch(() => { });
    }
    sleep(ms, options = {}) {
        const wakeOnNotify = options.wakeOnNotify ?? true;
        if (this.stopping || (wakeOnNotify && this.notified)) {
            if (wakeOnNotify)
                this.notified = false;
            return Promise.resolve();
        }
        return new Promise((resolve) => {
            let timer = undefined;
            const done = () => {
                clearTimeout(timer);
                if (wakeOnNotify)
                    this.notified = false;
                resolve();
            };
            timer = setTimeout(done, ms);
            this.wakeOnStop = done;
            if (wakeOnNotify)
                this.wakeOnNotify = done;
            void options.until?.then(done);
        }).finally(() => {
            this.wakeOnStop = null;
            this.wakeOnNotify = null;
        });
    }
}
function hideFromLog(log, secrets) {
    if (secrets.length === 0)
        return;
    try {
        addLogSecrets(log, ...secrets);
    }
    catch {
    }
}
function safeSnapshot(snapshot) {
    try {
        return snapshot();
    }
    catch {
        return null;
    }
}
const delay = (ms) => wait(ms, undefined, { ref: false });
