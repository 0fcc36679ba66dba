import { readFileSync, statSync } from 'node:fs';
import { QueueError } from '../../../queue/errors.js';
import { UsageError } from './errors.js';
import { queueDbPath, queueExists } from '../../../status/queue-file.js';
export async function loadCliConfig(flags, options = {}) {
    const { loadConfig } = await import('../../../config/load.js');
    return loadConfig({ path: flags.config, ...options });
}
export async function openExistingQueue(dataDir) {
    refuseRootInForeignDataDir(dataDir);
    const file = queueDbPath(dataDir);
    if (!queueExists(dataDir)) {
        throw new QueueError('ERR_QUEUE', `no queue database at ${file}: check dataDir in the config; the daemon creates it on its first start`);
    }
    const { openQueue } = await import('../../../queue/index.js');
    return openQueue(file);
}
export function refuseRootInForeignDataDir(dataDir) {
    if (process.geteuid?.() !== 0)
        return;
    let owner;
    try {
        owner = statSync(dataDir).uid;
    }
    catch {
        return;
    }
    if (owner === 0)
        return;
    const name = userName(owner) ?? String(owner);
    throw new UsageError(`refusing to open the queue in ${dataDir} as root: it belongs to ${name}, and files root creates there would lock the service out. Run it as that user: sudo -u ${name} station-agent ...`);
}
function userName(uid) {
    try {
        for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
            const [name, , id] = line.split(':');
            if (name && Number(id) === uid)
                return name;
        }
    }
    catch {
    }
    return undefined;
}
