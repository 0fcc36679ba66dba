import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Where the queue database lives: `<dataDir>/queue.db`. The daemon, ingest and
 * every CLI command open this one file (read commands open it only when it exists,
 * so `status` on a fresh install does not create an empty queue as the wrong user).
 */
const QUEUE_FILE_NAME = 'queue.db';

export function queueDbPath(dataDir: string): string {
  return path.join(dataDir, QUEUE_FILE_NAME);
}

export function queueExists(dataDir: string): boolean {
  return existsSync(queueDbPath(dataDir));
}
