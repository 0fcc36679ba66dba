import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { Queue } from '../queue/index.js';
import type { WriteBatch } from '../queue/write-batch.js';
import { describeUnknownName, unknownConfigNames } from '../policy/name-check.js';
import { createStationPolicy, type StationPolicy } from '../policy/recording-policy.js';
import { Labels } from './labels.js';
import { Spool } from './spool.js';
import type { ResultFormat } from './types.js';

/**
 * The ingest settings of a config, shared by the daemon's watcher and the `ingest`
 * command so both queue exactly the same items for the same files.
 */
export interface IngestContext {
  queue: Queue;
  spool: Spool;
  labels: Labels | undefined;
  /** IANA zone of the station: naive local file names are read in it. */
  zone: string;
  /** Which rows are posted and whether the audio may be kept (input.minConfidence, privacy, filters). */
  policy: StationPolicy;
  format: ResultFormat | 'auto';
  lat: number | null;
  lon: number | null;
  /** `disk.minFreeMb`: below it, audio is not spooled (detections still queue; system/disk.ts says "low"). */
  minFreeMb: number;
  /** Larger result files are refused (`input.maxResultFileMb`). */
  maxResultFileBytes: number;
  /**
   * How long a result file whose end looks unfinished (no final line end, JSON that does
   * not parse) must stay unchanged before it is taken as it is. The daemon waits
   * `SETTLE_MS` (the analyzer may still be writing); `ingest`, run by an operator on
   * finished output, much less.
   */
  settleMs?: number;
  log: Logger;
  now?: () => number;
  /**
   * The clock the queue's timestamps are written by (created_at, next_attempt_at, the
   * species gate's expiry, the file marks): the daemon's expiry clock (queue/expiry-clock.ts),
   * so a wall clock jumped to 2100 does not stamp items due, or holds expiring, 75 years
   * late once it is right again. Default `now`.
   */
  queueNow?: () => number;
  /** Report what would be queued without writing anything. */
  dryRun?: boolean;
  /**
   * `station-agent ingest`: the open batch of writes (several files per commit); a long
   * file commits it when it reaches its bounds. The daemon commits each file on its own.
   */
  writes?: WriteBatch;
}

export async function createIngestContext(
  config: Config,
  queue: Queue,
  log: Logger,
  options: { dryRun?: boolean; settleMs?: number } = {},
): Promise<IngestContext> {
  const spool = new Spool(config.dataDir, config.input.ramDiskAudio === 'keep' ? config.input.dir : null, config.input.dir);
  if (!options.dryRun) {
    const note = await spool.init();
    if (note) log.warn(note);
  }
  const labels = config.input.labels
    ? await Labels.load(config.input.labels, config.input.localizedLabels ?? undefined)
    : undefined;
  // Said once, at start: a misspelt class or species in the config matches no row, and a
  // filter the owner believes on is off.
  if (labels) for (const u of unknownConfigNames(config, labels)) log.warn({ key: u.key, name: u.name, suggestion: u.suggestion }, describeUnknownName(u));
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
