import type { LoadConfigOptions, LoadedConfig } from '../../../config/index.js';
import type { Queue } from '../../../queue/index.js';
import { readFileSync, statSync } from 'node:fs';
import { QueueDatabaseError } from '../../../queue/errors.js';
import { UsageError } from './errors.js';
import { queueDbPath, queueExists } from '../../../status/queue-file.js';

/**
 * What most actions start with: the loaded config, and the queue. Imported lazily
 * by the actions, so a command's registration costs nothing at start-up.
 */

export interface ConfigFlags {
  config?: string;
}

/**
 * `options.unreadableTokenFile`: as `loadConfig` (`report` for commands that work without the token).
 * `options.validateApart`: a long command (a backfill) validates a changed config in a child process (config/validate-apart.ts).
 */
export async function loadCliConfig(
  flags: ConfigFlags,
  options: Pick<LoadConfigOptions, 'unreadableTokenFile' | 'validateApart'> = {},
): Promise<LoadedConfig> {
  const { loadConfig } = await import('../../../config/load.js');
  return loadConfig({ path: flags.config, ...options });
}

/**
 * Opens the queue of `dataDir` if it exists. Commands that only look at or change
 * queued items never create a queue: a missing database is an error naming the
 * file (exit 5), usually a wrong `dataDir` or a daemon that never ran.
 */
export async function openExistingQueue(dataDir: string): Promise<Queue> {
  refuseRootInForeignDataDir(dataDir);
  const file = queueDbPath(dataDir);
  if (!queueExists(dataDir)) {
    throw new QueueDatabaseError(`no queue database at ${file}: check dataDir in the config; the daemon creates it on its first start`);
  }
  const { openQueue } = await import('../../../queue/index.js');
  return openQueue(file);
}

/**
 * `sudo station-agent ingest ...` would create the queue's files (and its WAL/SHM
 * companions, even for a read) owned by root in a folder the service's user owns,
 * after which the service can no longer write its own queue. Refused, with the
 * command that works.
 */
export function refuseRootInForeignDataDir(dataDir: string): void {
  if (process.geteuid?.() !== 0) return;
  let owner: number;
  try {
    owner = statSync(dataDir).uid;
  } catch {
    return;
  }
  if (owner === 0) return;
  const name = userName(owner) ?? String(owner);
  throw new UsageError(
    `refusing to open the queue in ${dataDir} as root: it belongs to ${name}, and files root creates there would lock the service out. Run it as that user: sudo -u ${name} station-agent ...`,
  );
}

function userName(uid: number): string | undefined {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (name && Number(id) === uid) return name;
    }
  } catch {
    // No passwd file: the number will do.
  }
  return undefined;
}
