import path from 'node:path';
import { webhookFromConfig } from '../alerts/webhook-config.js';
import type { WebhookOptions } from '../alerts/webhook.js';
import type { Config } from '../config/schema.js';
import { createIngestContext, type IngestContext } from '../ingest/context.js';
import type { Logger } from '../log/index.js';
import { openQueue, recoverInFlight, type Queue } from '../queue/index.js';
import { acquireDaemonLock, dataDirLockWarning, type DaemonLock } from '../system/daemon-lock.js';
import { ramDataDirWarning, ramFileSystemNear } from '../system/disk.js';

export interface Prepared {
  lock: DaemonLock;
  queue: Queue;
  ingest: IngestContext;
  webhook: WebhookOptions | null;
}

/**
 * What comes before any component: the dataDir's lock, the queue and what can still
 * fail (an unreadable labels file, a webhook secret file), so a bad file fails the start
 * like a bad token, with the queue closed and the lock released. Then the recovery of
 * what the last stop interrupted.
 */
export async function prepare(config: Config, configPath: string | null, log: Logger): Promise<Prepared> {
  // One daemon per dataDir, taken before the queue opens: recovery below marks every
  // `sending` item `unknown`, which is only true when no other daemon is sending them.
  // One daemon per input folder too: two with a dataDir each would both upload every recording.
  const lock = await acquireDaemonLock(config.dataDir, config.input.dir);
  const openToOthers = dataDirLockWarning(config.dataDir);
  if (openToOthers) log.warn(openToOthers);
  const ram = await ramFileSystemNear(config.dataDir);
  if (ram) log.warn(ramDataDirWarning(config.dataDir, ram));
  let queue: Queue | undefined;
  try {
    queue = openQueue(path.join(config.dataDir, 'queue.db'));
    const [ingest, webhook] = await Promise.all([createIngestContext(config, queue, log), webhookFromConfig(config, configPath, (m) => log.warn(m))]);
    const recovered = recoverInFlight(queue);
    // The WAL made durable once, with its folder entry (created at this open, as after every
    // clean stop): the uploader's commits are then fsynced by the WAL alone (queue/db.ts syncWal).
    queue.syncWal();
    if (recovered.recordings + recovered.detections > 0) {
      log.warn(recovered, 'items interrupted by the last stop will be reconciled with the service before any new post');
    }
    return { lock, queue, ingest, webhook };
  } catch (err) {
    queue?.close();
    lock.release();
    throw err;
  }
}
