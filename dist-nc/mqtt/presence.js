import { getMeta, setMeta, skipUnpublished } from '../queue/index.js';
export const PRESENCE_META_KEY = 'mqtt';
const NONE = { active: false, broker: null, discoveryTopics: [], retainedTopics: [] };
export function readPresence(q) {
    return { ...NONE, ...getMeta(q, PRESENCE_META_KEY) };
}
function writePresence(q, presence) {
    setMeta(q, PRESENCE_META_KEY, presence);
}
export function activatePublishing(q) {
    return q.write(() => {
        const presence = readPresence(q);
        if (presence.active)
            return { skipped: 0 };
        const skipped = skipUnpublished(q);
        writePresence(q, { ...presence, active: true });
        return { skipped };
    });
}
export function deactivatePublishing(q) {
    const presence = readPresence(q);
    if (presence.active)
        writePresence(q, { ...presence, active: false });
}
export function rememberRetained(q, broker, topics) {
    q.write(() => {
        const p = readPresence(q);
        const discoveryTopics = [...new Set([...p.discoveryTopics, ...(topics.discovery ?? [])])];
        const retainedTopics = [...new Set([...p.retainedTopics, ...(topics.retained ?? [])])];
        if (discoveryTopics.length === p.discoveryTopics.length && retainedTopics.length === p.retainedTopics.length && p.broker === broker)
            return;
        writePresence(q, { ...p, broker, discoveryTopics, retainedTopics });
    });
}
export function forgetRetained(q, topics) {
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
export function hasRetained(p) {
    return p.discoveryTopics.length + p.retainedTopics.length > 0;
}
