import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { Queue } from '../queue/index.js';
import { createStationPolicy } from '../policy/recording-policy.js';
import type { IngestContext } from './ingest-recording.js';
import { Labels } from './labels.js';
import { Spool } from './spool.js';

/**
 * The ingest settings of a config, shared by the daemon's watcher and the
 * `ingest` command so both queue exactly the same items for the same files.
 */
export async function createIngestContext(
  config: Config,
  queue: Queue,
  log: Logger,
  options: { dryRun?: boolean; settleMs?: number } = {},
): Promise<IngestContext> {
  const spool = new Spool(config.dataDir);
  if (!options.dryRun) await spool.init();
  const labels = config.input.labels
    ? await Labels.load(config.input.labels, config.input.localizedLabels ?? undefined)
    : undefined;
  const format = config.input.format === 'results' || config.input.format === 'analyzerpi' ? 'auto' : config.input.format;
  return {
    queue,
    spool,
    labels,
    zone: config.station.timezone,
    policy: createStationPolicy(config),
    // The mode decides which files are looked at; within them, the format follows each file's name and header.
    format,
    lat: config.station.latitude ?? null,
    lon: config.station.longitude ?? null,
    minFreeMb: config.disk.minFreeMb,
    maxResultFileBytes: config.input.maxResultFileMb * 1024 * 1024,
    log,
    dryRun: options.dryRun,
    settleMs: options.settleMs,
  };
}
