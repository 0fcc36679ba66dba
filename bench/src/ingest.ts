import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { ingestPaths } from '../../src/ingest/backfill.js';
import { openQueue } from '../../src/queue/index.js';
import { writeAgentConfig } from './agent-config.js';
import { runIngestWatch } from './ingest-watch.js';
import { runLargeResult } from './large-result.js';
import { fsyncTime } from './machine.js';
import type { BenchOptions } from './options.js';
import { figure, type Figure } from './report.js';
import { recordingBaseName, writeResultCsv } from './result-files.js';

/**
 * Ingest: detections parsed and committed per second. Result files without audio
 * (so only parsing and the queue are measured), backfilled with `ingestPaths` (what
 * `station-agent ingest` runs, through the watcher's pairing and parsers) into a
 * fresh queue with `synchronous=FULL`.
 */
export async function runIngest(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  // The service is never contacted: ingest only queues.
  const cfg = writeAgentConfig({ dir, serviceUrl: 'http://127.0.0.1:9' });
  const resultsDir = path.join(cfg.inputDir, 'backfill');
  mkdirSync(resultsDir, { recursive: true });
  const startMs = Math.floor((Date.now() - 30 * 86_400_000) / 3_600_000) * 3_600_000;
  for (let i = 0; i < options.ingestFiles; i++) {
    writeResultCsv(resultsDir, recordingBaseName(startMs + i * 30_000), options.ingestRows, i);
  }
  const { config } = await loadConfig({ path: cfg.configPath, env: {} });
  const queue = openQueue(path.join(cfg.dataDir, 'queue.db'));
  try {
    const synchronous = queue.db.pragma('synchronous', { simple: true }) as number;
    const fsyncMs = fsyncTime(dir);
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await ingestPaths({ config, queue, paths: [resultsDir] });
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const cpuSec = (used.user + used.system) / 1e6;
    const expected = options.ingestFiles * options.ingestRows;
    if (result.detections !== expected || result.errors.length > 0) {
      throw new Error(`ingest queued ${result.detections} of ${expected} detections; errors: ${JSON.stringify(result.errors.slice(0, 3))}`);
    }
    const perSec = result.detections / seconds;
    log(`ingest: ${options.ingestFiles} files x ${options.ingestRows} rows in ${seconds.toFixed(2)} s = ${perSec.toFixed(0)} detections/s (cpu ${cpuSec.toFixed(2)} s, synchronous=${synchronous}, fsync ${fsyncMs} ms)`);
    const many = [
      figure({
        id: 'ingest.detectionsPerSec',
        name: 'ingest: detections parsed and committed',
        value: perSec,
        unit: 'detections/s',
        digits: 0,
        target: { op: '>=', value: 10_000 },
        detail: {
          files: options.ingestFiles,
          rowsPerFile: options.ingestRows,
          seconds,
          cpuSec,
          filesPerSec: options.ingestFiles / seconds,
          // 2 = FULL
          synchronous,
          fsyncMs,
        },
      }),
    ];
    return [...many, ...(await runLargeResult(options, dir, log)), ...(await runIngestWatch(options, dir, log))];
  } finally {
    queue.close();
  }
}
