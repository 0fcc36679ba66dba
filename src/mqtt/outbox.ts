import { localDay } from '../upload/data-budget.js';
import { getMeta, setMeta, type Queue, type TodayTally } from '../queue/index.js';
import { markDetectionsPublished } from '../queue/mqtt-mark-published.js';
import type { OutboxDetection } from '../queue/mqtt-to-publish.js';

/**
 * The day's tally of published detections (the `<base>/state` topic's "today"), kept in
 * the queue's meta table beside the outbox so it survives a restart. The outbox itself,
 * the column `detections.mqtt_published` and its named states, belongs to the queue
 * (src/queue/mqtt-state.ts and the `mqtt-*.ts` operations beside it).
 */

const TODAY_META_KEY = 'mqttToday';

export type { TodayTally };

/** Today's tally (an empty one once the day changed). */
export function readToday(q: Queue, zone: string, now: number = Date.now()): TodayTally {
  const day = localDay(now, zone);
  const stored = getMeta(q, TODAY_META_KEY);
  return stored && stored.day === day ? stored : { day, total: 0, species: {}, last: stored?.last ?? null };
}

/**
 * Marks a batch of detection messages as published and counts them into today's tally,
 * in one transaction: the tally never counts a detection twice, or one the broker lacks.
 * One meta write per batch.
 */
export function recordPublished(q: Queue, batch: readonly OutboxDetection[], zone: string, now: number = Date.now()): TodayTally {
  return q.write(() => {
    const marked = new Set(markDetectionsPublished(q, batch.map((d) => d.id)));
    const tally = readToday(q, zone, now);
    if (marked.size === 0) return tally;
    for (const d of batch) {
      if (!marked.has(d.id)) continue;
      tally.last = { species: d.commonName, scientificName: d.scientificName, timestamp: d.timestamp };
      if (localDay(d.timestamp, zone) !== tally.day) continue;
      tally.total++;
      tally.species[d.commonName] = (tally.species[d.commonName] ?? 0) + 1;
    }
    setMeta(q, TODAY_META_KEY, tally, { now });
    return tally;
  });
}
