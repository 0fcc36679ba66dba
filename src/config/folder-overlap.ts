import path from 'node:path';
import { realPathOfExisting } from '../system/real-path.js';

/**
 * `dataDir` and `input.dir` must be apart. With the data folder inside the input folder
 * the watcher takes the agent's own spool files as the analyzer's (analyzerpi WAVs taken
 * into `spool/incoming/` are then lost); with the input folder inside the data folder the
 * agent's spool and retention sweeps work where the analyzer writes. No setup needs
 * either, so both are refused rather than excluded from the watch.
 *
 * Compared by real path: a symlink or `..` must not hide that they are the same place.
 * A folder that does not exist yet is resolved through its nearest existing parent.
 *
 * @returns the problem, naming both keys, or null when they are apart
 */
export async function folderOverlapProblem(dataDir: string, inputDir: string): Promise<string | null> {
  const [data, input] = await Promise.all([realPathOfExisting(dataDir), realPathOfExisting(inputDir)]);
  const shown = (key: string, given: string, real: string) => `${key} ${given}${real === path.resolve(given) ? '' : ` (${real})`}`;
  const both = `${shown('dataDir', dataDir, data)} and ${shown('input.dir', inputDir, input)}`;
  if (data === input) return `dataDir must not be input.dir: ${both} are the same folder; set dataDir to a folder of its own (e.g. /var/lib/station-agent)`;
  if (isInside(data, input)) return `dataDir must not be inside input.dir: ${both}; the watcher would take the agent's own spool files. Set dataDir outside input.dir`;
  if (isInside(input, data)) return `input.dir must not be inside dataDir: ${both}; dataDir is the agent's own (queue, spool). Set dataDir outside input.dir`;
  return null;
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
