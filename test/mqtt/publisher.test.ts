import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../../src/config/index.js';
import { discoveryMessages } from '../../src/mqtt/discovery.js';
import { MqttPublisher } from '../../src/mqtt/publisher.js';
import { outboxCounts } from '../../src/queue/index.js';
import { readPresence } from '../../src/mqtt/presence.js';
import { retractFromBroker } from '../../src/mqtt/retract.js';
import { stationTopics, type DetectionPayload, type DetectionUpdatePayload, type StatePayload } from '../../src/mqtt/topics.js';
import { enqueueMany, markUploaded, transition, type Queue } from '../../src/queue/index.js';
import { createBroker, requireMosquitto, subscribe, type Broker, type Subscriber } from '../helpers/mosquitto.js';
import { detection, recording, tempQueue } from '../queue/helpers.js';
import { countingProxy } from '../helpers/tcp-proxy.js';
import { HA_DISCOVERY_CHECKS } from './ha-discovery-schema.js';
import { until } from '../helpers/until.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function mqttConfig(url: string, mqtt: Record<string, unknown> = {}): Config {
  return parseConfig({
    service: { baseUrl: 'http://127.0.0.1:9', token: 'x' },
    station: { latitude: 52.52, longitude: 13.4, timezone: 'Europe/Berlin', settings: { name: 'Garden' } },
    input: { dir: '/tmp/in' },
    mqtt: { enabled: true, url, clientId: 'garden', ...mqtt },
  });
}

/** `n` detections in recordings of 10, each with its own start (the queue order is their id order). */
function queueDetections(q: Queue, from: number, n: number): void {
  const inputs = [];
  for (let r = from; r < from + n; r += 10) {
    const rec = recording(r);
    inputs.push({ recording: rec, detections: Array.from({ length: Math.min(10, from + n - r) }, (_, i) => detection(rec.sourceKey, i)) });
  }
  enqueueMany(q, inputs);
}

function startPublisher(config: Config, q: Queue, backoff = { baseMs: 50, maxMs: 300 }): MqttPublisher {
  const publisher = new MqttPublisher({
    config,
    queue: q,
    log: pino({ level: 'silent' }),
    snapshot: () => null,
    backoff,
    pollMs: 200,
  });
  publisher.start();
  cleanups.push(() => publisher.stop());
  return publisher;
}


async function broker(options: Parameters<typeof createBroker>[0] = {}): Promise<Broker> {
  const b = await createBroker(options);
  cleanups.push(() => b.close());
  return b;
}

function queue(): Queue {
  const t = tempQueue();
  cleanups.push(t.cleanup);
  return t.q;
}

async function sub(url: string, topics: string[], options = {}): Promise<Subscriber> {
  const s = await subscribe(url, topics, options);
  cleanups.push(() => s.close());
  return s;
}

const run = requireMosquitto() ? describe : describe.skip;

run('MqttPublisher against a real Mosquitto broker', () => {
  it('delivers every detection queued while the broker was down once it is back: all, once each, in queue order', async () => {
    const b = await broker({ persistent: true });
    const config = mqttConfig(b.url);
    const topics = stationTopics(config.mqtt);
    // The subscriber's session (clean: false) outlives the broker's restart and its own absence.
    await b.start();
    const first = await subscribe(b.url, [topics.detection], { clientId: 'ha-sub', clean: false });
    await first.close();
    await b.stop();

    const q = queue();
    // Started first: what a queue held before MQTT was turned on is not replayed.
    const publisher = startPublisher(config, q);
    queueDetections(q, 0, 120);
    await until('a failed connect', () => publisher.status().lastError !== null);
    queueDetections(q, 200, 35); // more arrive during the outage
    publisher.notify();
    expect(outboxCounts(q).detections).toBe(155);

    await b.start();
    await until('the backlog published', () => outboxCounts(q).detections === 0);
    const back = await sub(b.url, [], { clientId: 'ha-sub', clean: false });
    await back.waitFor((m) => m.length >= 155, '155 detection messages');
    // A duplicate would arrive before anything published after it on the same topic: one more
    // detection, queued now, bounds the wait.
    queueDetections(q, 400, 1);
    publisher.notify();
    const lastId = (q.stmt('SELECT max(id) AS id FROM detections').get() as { id: number }).id;
    await back.waitFor((m) => m.some((x) => (JSON.parse(x.payload) as DetectionPayload).id === lastId), 'the detection queued last');
    const ids = back.messages.map((m) => (JSON.parse(m.payload) as DetectionPayload).id);
    const queued = (q.stmt('SELECT id FROM detections ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    expect(ids).toEqual(queued);
    const one = JSON.parse(back.messages[0].payload) as DetectionPayload;
    expect(one).toMatchObject({
      event: 'detected',
      species: 'Eurasian Blackbird',
      scientificName: 'Turdus merula',
      confidence: 0.8,
      timestamp: '2024-05-01T06:00:03.000+02:00',
      startS: 0,
      endS: 3,
      station: { id: 'garden', name: 'Garden', latitude: 52.52, longitude: 13.4 },
    });
  });

  it('publishes the service ids once uploaded, the retained state and availability, and valid Home Assistant discovery', async () => {
    const b = await broker();
    await b.start();
    const config = mqttConfig(b.url);
    const topics = stationTopics(config.mqtt);
    const s = await sub(b.url, [`${topics.base}/#`, 'homeassistant/#']);
    const q = queue();
    startPublisher(config, q);
    queueDetections(q, 0, 3);
    await s.waitFor((m) => m.filter((x) => x.topic === topics.detection).length === 3, 'three detections');
    transition(q, 'recording', 1, 'sending');
    markUploaded(q, 'recording', 1, 900);
    const ids = (q.stmt('SELECT id FROM detections ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    transition(q, 'detection', ids[1], 'sending');
    markUploaded(q, 'detection', ids[1], 4242);

    await s.waitFor((m) => m.some((x) => x.topic === topics.detectionUpdate), 'an update');
    const update = JSON.parse(s.messages.find((x) => x.topic === topics.detectionUpdate)!.payload) as DetectionUpdatePayload;
    expect(update).toMatchObject({ event: 'uploaded', id: ids[1], detectionId: 4242, soundscapeId: 900, scientificName: 'Turdus merula' });
    expect(s.messages.filter((x) => x.topic === topics.detectionUpdate)).toHaveLength(1);

    expect(s.messages.find((x) => x.topic === topics.status)?.payload).toBe('online');
    const discovery = s.messages.filter((x) => x.topic.startsWith('homeassistant/'));
    expect(discovery.map((d) => d.topic).sort()).toEqual(HA_DISCOVERY_CHECKS.map((c) => c.topic('garden')).sort());
    for (const message of discovery) {
      const check = HA_DISCOVERY_CHECKS.find((c) => c.topic('garden') === message.topic)!;
      const parsed = check.schema.safeParse(JSON.parse(message.payload));
      expect(parsed.success, `${message.topic}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }

    // A new subscriber gets the retained state (and availability) at once.
    const late = await sub(b.url, [topics.state, topics.status]);
    await late.waitFor((m) => m.some((x) => x.topic === topics.state && x.retain), 'the retained state');
    const state = JSON.parse(late.messages.find((x) => x.topic === topics.state)!.payload) as StatePayload;
    expect(state.queue.detectionsWaiting).toBe(2);
    expect(state.lastSpecies).toBe('Eurasian Blackbird');
    expect(state.mqttPending).toBe(0);
    expect(late.messages.find((x) => x.topic === topics.status)).toMatchObject({ payload: 'online', retain: true });
  });

  it('does not replay what was queued before MQTT was turned on', async () => {
    const b = await broker();
    await b.start();
    const config = mqttConfig(b.url);
    const s = await sub(b.url, [stationTopics(config.mqtt).detection]);
    const q = queue();
    queueDetections(q, 0, 5);
    const publisher = startPublisher(config, q);
    queueDetections(q, 100, 2);
    publisher.notify();
    await s.waitFor((m) => m.length >= 2, 'the two new detections');
    await until('the batch marked', () => outboxCounts(q).detections === 0);
    expect(s.messages.map((m) => (JSON.parse(m.payload) as DetectionPayload).id)).toEqual([6, 7]);
  });

  it('keeps its reconnect backoff while detections are queued: a refused password is retried doubling, not at each notify', async () => {
    const b = await broker({ user: { name: 'station', password: 'right' } });
    await b.start();
    const proxy = await countingProxy(b.port);
    cleanups.push(() => proxy.close());
    const q = queue();
    const baseMs = 100;
    const publisher = startPublisher(mqttConfig(`mqtt://station:wrong@127.0.0.1:${proxy.port}`), q, { baseMs, maxMs: 60_000 });
    // What the daemon does on a busy day: a detection queued, and the publisher told, every few ms.
    let next = 0;
    const busy = setInterval(() => {
      queueDetections(q, next++ * 10, 1);
      publisher.notify();
    }, 15);
    cleanups.push(() => clearInterval(busy));
    await until('five connects', () => proxy.connects.length >= 5);
    clearInterval(busy);
    const seen = proxy.connects.length;
    const elapsed = proxy.connects[seen - 1] - proxy.connects[0];
    // Waits of at least half of 100 ms doubling: n connects take at least 50 * (2^(n-1) - 1) ms,
    // so in `elapsed` ms at most 1 + log2(elapsed / 50 + 1) fit (with 10 ms for timer rounding).
    const most = Math.floor(1 + Math.log2((elapsed + 10) / (baseMs / 2) + 1));
    expect(seen, `${seen} connects in ${Math.round(elapsed)} ms`).toBeLessThanOrEqual(most);
    expect(publisher.status()).toMatchObject({ connected: false, lastError: { code: 'ERR_MQTT_BROKER' } });
    expect(publisher.status().lastError?.message).toMatch(/Not authorized|Bad username or password/i);
    expect(publisher.status().lastError?.message).not.toContain('wrong');
  });

  it('removes its discovery and retained topics when MQTT is turned off, and says offline when stopped', async () => {
    const b = await broker();
    await b.start();
    const config = mqttConfig(b.url);
    const topics = stationTopics(config.mqtt);
    const q = queue();
    const publisher = startPublisher(config, q);
    const s = await sub(b.url, [topics.status]);
    await until('discovery remembered', () => readPresence(q).discoveryTopics.length === discoveryMessages(config).length && readPresence(q).retainedTopics.includes(topics.state));
    await publisher.stop();
    await s.waitFor((m) => m.at(-1)?.payload === 'offline', 'offline');

    const off = mqttConfig(b.url, { enabled: false });
    expect(await retractFromBroker(off, q, pino({ level: 'silent' }))).toBe('removed');
    expect(readPresence(q)).toMatchObject({ discoveryTopics: [], retainedTopics: [] });
    // Nothing retained is left: a fresh subscriber to everything gets nothing.
    const after = await sub(b.url, ['#']);
    // Retained messages come right after the subscription, before anything published later.
    await after.client.publishAsync('test/marker', 'after the retained', { qos: 1 });
    await after.waitFor((m) => m.some((x) => x.topic === 'test/marker'), 'the marker published after subscribing');
    expect(after.messages.filter((m) => m.retain && m.payload !== '')).toEqual([]);
  });
});

describe('Home Assistant discovery', () => {
  it('names each entity with default_entity_id (its domain included), never the deprecated object_id, whatever the client id', () => {
    for (const clientId of ['garden', 'Station-Agent_Garden-2']) {
      const messages = discoveryMessages(mqttConfig('mqtt://127.0.0.1:1883', { clientId }));
      expect(messages.map((d) => d.topic).sort()).toEqual(HA_DISCOVERY_CHECKS.map((c) => c.topic(clientId)).sort());
      for (const message of messages) {
        const parsed = HA_DISCOVERY_CHECKS.find((c) => c.topic(clientId) === message.topic)!.schema.safeParse(message.payload);
        expect(parsed.success, `${message.topic}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      }
    }
    const last = discoveryMessages(mqttConfig('mqtt://127.0.0.1:1883', { clientId: 'Station-Agent_Garden-2' }))[0].payload;
    expect(last).toMatchObject({ unique_id: 'Station-Agent_Garden-2_last_species', default_entity_id: 'sensor.station_agent_garden_2_last_species' });
  });
});
