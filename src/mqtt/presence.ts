import { getMeta, setMeta, skipUnpublished, type MqttPresence, type Queue } from '../queue/index.js';

/**
 * What the station left on the broker, remembered in the queue's meta table so it can
 * be removed when MQTT is turned off (`mqtt.enabled: false` with `mqtt.url` still set,
 * or `mqtt.discovery: false`): the Home Assistant discovery topics and the retained
 * station topics. Also whether publishing is active, so that turning MQTT on again does
 * not replay what was queued while it was off.
 *
 * This file does not load the `mqtt` package: the daemon reads it on every start.
 */
export type { MqttPresence };

const PRESENCE_META_KEY = 'mqtt';

const NONE: MqttPresence = { active: false, broker: null, discoveryTopics: [], retainedTopics: [] };

export function readPresence(q: Queue): MqttPresence {
  return { ...NONE, ...getMeta(q, PRESENCE_META_KEY) };
}

function writePresence(q: Queue, presence: MqttPresence): void {
  setMeta(q, PRESENCE_META_KEY, presence);
}

/** Publishing starts (daemon start with `mqtt.enabled`). When it was off, the backlog of that time is skipped. */
export function activatePublishing(q: Queue): { skipped: number } {
  return q.write(() => {
    const presence = readPresence(q);
    if (presence.active) return { skipped: 0 };
    const skipped = skipUnpublished(q);
    writePresence(q, { ...presence, active: true });
    return { skipped };
  });
}

/** Publishing stops (daemon start without `mqtt.enabled`): one write, only when it was on. */
export function deactivatePublishing(q: Queue): void {
  const presence = readPresence(q);
  if (presence.active) writePresence(q, { ...presence, active: false });
}

/** Adds topics the station published retained. */
export function rememberRetained(q: Queue, broker: string, topics: { discovery?: readonly string[]; retained?: readonly string[] }): void {
  q.write(() => {
    const p = readPresence(q);
    const discoveryTopics = [...new Set([...p.discoveryTopics, ...(topics.discovery ?? [])])];
    const retainedTopics = [...new Set([...p.retainedTopics, ...(topics.retained ?? [])])];
    if (discoveryTopics.length === p.discoveryTopics.length && retainedTopics.length === p.retainedTopics.length && p.broker === broker) return;
    writePresence(q, { ...p, broker, discoveryTopics, retainedTopics });
  });
}

/** Forgets topics once their retained messages were cleared on the broker. */
export function forgetRetained(q: Queue, topics: { discovery?: readonly string[]; retained?: readonly string[] }): void {
  q.write(() => {
    const p = readPresence(q);
    const drop = new Set([...(topics.discovery ?? []), ...(topics.retained ?? [])]);
    writePresence(q, {
      ...p,
      discoveryTopics: p.discoveryTopics.filter((t) => !drop.has(t)),
      retainedTopics: p.retainedTopics.filter((t) => !drop.has(t)),
    });
  });
}

/** Whether anything of the station is left on the broker. */
export function hasRetained(p: MqttPresence): boolean {
  return p.discoveryTopics.length + p.retainedTopics.length > 0;
}
