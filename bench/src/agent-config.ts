import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_TOKEN, STATION } from './service-process.js';

/**
 * The config file of a benchmarked agent: production defaults everywhere except
 * what a benchmark has to set (the local service, the folders, the clock check
 * that a container may not answer) and what a figure varies (concurrency, the
 * quiet time of the watcher).
 */
export interface BenchAgentConfig {
  /** Folder that receives `config.json`, `input/` and `data/`. */
  dir: string;
  serviceUrl: string;
  concurrency?: number;
  stableMs?: number;
  minConfidence?: number;
  /**
   * Keep the production default `clock.requireSync: auto` (idle figures: its periodic
   * check is part of the idle cost). Otherwise `never`, so that a machine reporting an
   * unsynchronised clock cannot hold a timed drain.
   */
  productionClock?: boolean;
  /** `input.format` (default `auto`), and the labels file analyzerpi input needs. */
  format?: 'auto' | 'results' | 'analyzerpi';
  labels?: string;
  /** The analyzer's folder, when not `<dir>/input` (another filesystem: a RAM disk). */
  inputDir?: string;
  /** `input.ramDiskAudio` (default: the agent's, `copy`). */
  ramDiskAudio?: 'copy' | 'keep';
  /** Settings of `upload` besides concurrency (e.g. a short probe interval). */
  upload?: Record<string, unknown>;
  /** Top-level sections set as they are (e.g. `audit`, `alerts`: the delivery section's on and off). */
  sections?: Record<string, unknown>;
  /** `input.afterUpload` (default: the agent's, `keep`). */
  afterUpload?: 'keep' | 'delete';
  /** `metrics.listen` (default: the agent's, off). */
  metricsListen?: string;
}

export interface WrittenAgentConfig {
  configPath: string;
  inputDir: string;
  dataDir: string;
}

export function writeAgentConfig(options: BenchAgentConfig): WrittenAgentConfig {
  const inputDir = options.inputDir ?? path.join(options.dir, 'input');
  const dataDir = path.join(options.dir, 'data');
  mkdirSync(inputDir, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const config = {
    service: { baseUrl: options.serviceUrl, token: BENCH_TOKEN },
    station: { latitude: STATION.lat, longitude: STATION.lon, timezone: STATION.timezone },
    input: {
      dir: inputDir,
      format: options.format ?? 'auto',
      ...(options.labels !== undefined ? { labels: options.labels } : {}),
      minConfidence: options.minConfidence ?? 0.1,
      ...(options.stableMs !== undefined ? { stableMs: options.stableMs } : {}),
      ...(options.ramDiskAudio !== undefined ? { ramDiskAudio: options.ramDiskAudio } : {}),
      ...(options.afterUpload !== undefined ? { afterUpload: options.afterUpload } : {}),
    },
    ...(options.metricsListen !== undefined ? { metrics: { listen: options.metricsListen } } : {}),
    dataDir,
    upload: { concurrency: options.concurrency ?? 4, ...options.upload },
    clock: { requireSync: options.productionClock ? 'auto' : 'never' },
    log: { level: 'info' },
    ...options.sections,
  };
  const configPath = path.join(options.dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config, null, 2), { mode: 0o600 });
  return { configPath, inputDir, dataDir };
}
