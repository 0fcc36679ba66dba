import { afterEach, describe, expect, it } from 'vitest';
import { createAgentMetrics } from '../../src/metrics/index.js';
import { parseRuntimeSnapshot } from '../../src/runtime/snapshot.js';
import { tempQueue } from '../queue/helpers.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('MQTT metrics', () => {
  it('count acknowledged messages by kind and failures by stage, and show the connection from the snapshot', async () => {
    const t = tempQueue();
    cleanup = t.cleanup;
    let connected: boolean | null = null;
    const { registry, mqttObserver } = createAgentMetrics({
      queue: t.q,
      snapshot: () =>
        connected === null ? null : parseRuntimeSnapshot({ pid: 1, updatedAt: Date.now(), mqtt: { connected, broker: 'mqtt://b', lastPublishAt: null, lastError: null } }),
    });
    let text = await registry.metrics();
    expect(text).toMatch(/station_agent_mqtt_published_total\{kind="detection"\} 0/);
    expect(text).toMatch(/^station_agent_mqtt_connected 0/m);

    mqttObserver.published?.('detection', 50);
    mqttObserver.published?.('detection', 3);
    mqttObserver.published?.('state', 1);
    mqttObserver.failed?.('connect');
    connected = true;
    text = await registry.metrics();
    expect(text).toMatch(/station_agent_mqtt_published_total\{kind="detection"\} 53/);
    expect(text).toMatch(/station_agent_mqtt_published_total\{kind="state"\} 1/);
    expect(text).toMatch(/station_agent_mqtt_failures_total\{stage="connect"\} 1/);
    expect(text).toMatch(/station_agent_mqtt_failures_total\{stage="publish"\} 0/);
    expect(text).toMatch(/^station_agent_mqtt_connected 1/m);
  });
});
