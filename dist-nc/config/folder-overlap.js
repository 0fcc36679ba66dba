import path from 'node:path';
import { realPathOfExisting } from '../system/real-path.js';
export async function folderOverlapProblem(dataDir, inputDir) {
    const [data, input] = await Promise.all([realPathOfExisting(dataDir), realPathOfExisting(inputDir)]);
    const shown = (key, given, real) => `${key} ${given}${real === path.resolve(given) ? '' : ` (${real})`}`;
    const both = `${shown('dataDir', dataDir, data)} and ${shown('input.dir', inputDir, input)}`;
    if (data === input)
        return `dataDir must not be input.dir: ${both} are the same folder; set dataDir to a folder of its own (e.g. /var/lib/station-agent)`;
    if (isInside(data, input))
        return `dataDir must not be inside input.dir: ${both}; the watcher would take the agent's own spool files. Set dataDir outside input.dir`;
    if (isInside(input, data))
        return `input.dir must not be inside dataDir: ${both}; dataDir is the agent's own (queue, spool). Set dataDir outside input.dir`;
    return null;
}
function isInside(child, parent) {
    const rel = path.relative(parent, child);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
