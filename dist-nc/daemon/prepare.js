import path from 'node:path';
import { webhookFromConfig } from '../alerts/webhook-config.js';
import { createIngestContext } from '../ingest/context.js';
import { metaLastWrittenAt, openQueue, recoverInFlight } from '../queue/index.js';
import { acquireDaemonLock } from '../system/daemon-lock.js';
import { ExpiryClock } from '../upload/expiry-clock.js';
export async function prepare(config, configPath, log) {
    const lock = await acquireDaemonLock(config.dataDir, config.input.dir);
    let queue;
    try {
        queue = openQueue(path.join(config.dataDir, 'queue.db'));
        const [ctx, webhook] = await Promise.all([createIngestContext(config, queue, log), webhookFromConfig(config, configPath, (m) => log.warn(m))]);
        const recovered = recoverInFlight(queue);
        if (recovered.recordings + recovered.detections > 0) {
            log.warn(recovered, 'items interrupted by the last stop will be reconciled with the service before any new post');
        }
        return { lock, queue, ctx, webhook };
    }
    catch (err) {
        queue?.close();
        lock.release();
        throw err;
    }
}
export function expiryClock(queue, log, wall, synced) {
    return new ExpiryClock({
        wall,
        lastKnown: metaLastWrittenAt(queue),
        synced,
        onJump: (at, reference) => log.warn(`the clock (${new Date(at).toISOString()}) is more than a day ahead of the queue's last known time (${new Date(reference).toISOString()}): expiries (species gate, spool retention, the data budget's day) follow the last known time until the system reports NTP sync or the clock has held for a day`),
    });
}
