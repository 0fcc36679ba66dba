import { existsSync } from 'node:fs';
import path from 'node:path';
export const QUEUE_FILE_NAME = 'queue.db';
export function queueDbPath(dataDir) {
    return path.join(dataDir, QUEUE_FILE_NAME);
}
export function queueExists(dataDir) {
    return existsSync(queueDbPath(dataDir));
}
