import { localDay } from '../upload/data-budget.js';
import { getMeta, setMeta } from '../queue/index.js';
import { markDetectionsPublished } from '../queue/mqtt-mark-published.js';
export const TODAY_META_KEY = 'mqttToday';
export function readToday(q, zone, now = Date.now()) {
    const day = localDay(now, zone);
    const stored = getMeta(q, TODAY_META_KEY);
    return stored && stored.day === day ? stored : { day, total: 0, species: {}, last: stored?.last ?? null };
}
export function recordPublished(q, batch, zone, now = Date.now()) {
    return q.write(() => {
        const marked = new Set(markDetectionsPublished(q, batch.map((d) => d.id)));
        const tally = readToday(q, zone, now);
        if (marked.size === 0)
            return tally;
        for (const d of batch) {
            if (!marked.has(d.id))
                continue;
            tally.last = { species: d.commonName, scientificName: d.scientificName, timestamp: d.timestamp };
            if (localDay(d.timestamp, zone) !== tally.day)
                continue;
            tally.total++;
            tally.species[d.commonName] = (tally.species[d.commonName] ?? 0) + 1;
        }
        setMeta(q, TODAY_META_KEY, tally, { now });
        return tally;
    });
}
