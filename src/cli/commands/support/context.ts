import type { LoadedConfig } from '../../../config/index.js';
import type { Queue } from '../../../queue/index.js';
import { QueueError } from '../../../queue/errors.js';
import { queueDbPath, queueExists } from '../../../status/queue-file.js';

/**
 * What most actions start with: the loaded config, and the queue. Imported lazily
 * by the actions, so a command's registration costs nothing at start-up.
 */

export interface ConfigFlags {
  config?: string;
}

export async function loadCliConfig(flags: ConfigFlags): Promise<LoadedConfig> {
  const { loadConfig } = await import('../../../config/index.js');
  return loadConfig({ path: flags.config });
}

/**
 * Opens the queue of `dataDir` if it exists. Commands that only look at or change
 * queued items never create a queue: a missing database is an error naming the
 * file (exit 5), usually a wrong `dataDir` or a daemon that never ran.
 */
export async function openExistingQueue(dataDir: string): Promise<Queue> {
  const file = queueDbPath(dataDir);
  if (!queueExists(dataDir)) {
    throw new QueueError('ERR_QUEUE', `no queue database at ${file}: check dataDir in the config; the daemon creates it on its first start`);
  }
  const { openQueue } = await import('../../../queue/index.js');
  return openQueue(file);
}

/** Opens (creating when needed) the queue of `dataDir`, for commands that add to it (ingest). */
export async function openOrCreateQueue(dataDir: string): Promise<Queue> {
  const { openQueue } = await import('../../../queue/index.js');
  return openQueue(queueDbPath(dataDir));
}
