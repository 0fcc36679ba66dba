import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeAgentConfig } from './agent-config.js';
import type { BenchOptions } from './options.js';
import { CLI_MAIN, procStatusKb } from './proc.js';
import { figure, type Figure } from './report.js';

/**
 * One huge result table (as many rows as the queue section's detections: a million, about
 * 100 MB; with `--quick` 100 000) through
 * `station-agent ingest` as its own process: rows queued per second, and the process's
 * peak memory (VmHWM), which must not follow the file's size (tables are read as a
 * stream and queued in bounded batches; a Pi Zero 2 W has 512 MB).
 */
export async function runLargeResult(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const rows = options.queueDetections;
  const cfg = writeAgentConfig({ dir: path.join(dir, 'large'), serviceUrl: 'http://127.0.0.1:9' });
  mkdirSync(cfg.inputDir, { recursive: true });
  const table = path.join(cfg.inputDir, '20250601_000000.BirdNET.selection.table.txt');
  writeFileSync(table, 'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tSpecies Code\tCommon Name\tScientific Name\tConfidence\n');
  for (let at = 0; at < rows; at += 50_000) {
    let chunk = '';
    for (let i = at; i < Math.min(rows, at + 50_000); i++) {
      chunk += `${i + 1}\tSpectrogram 1\t1\t${i * 3}\t${i * 3 + 3}\t150\t12000\tcomchi1\tCommon Chiffchaff\tPhylloscopus collybita\t0.${5000 + (i % 5000)}\n`;
    }
    appendFileSync(table, chunk);
  }

  const started = performance.now();
  const child = spawn(process.execPath, [CLI_MAIN, 'ingest', table, '--config', cfg.configPath, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let peakKb = 0;
  const poll = setInterval(() => {
    peakKb = Math.max(peakKb, procStatusKb(child.pid!, 'VmHWM') ?? 0);
  }, 25);
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  clearInterval(poll);
  const seconds = (performance.now() - started) / 1000;
  const queued = code === 0 ? (JSON.parse(stdout) as { detections: number }).detections : -1;
  if (queued !== rows) throw new Error(`ingest of a ${rows}-row table queued ${queued} (exit ${code}): ${stderr.slice(0, 500)}`);
  const peakMb = peakKb / 1024;
  log(`ingest of one ${rows}-row table: ${seconds.toFixed(1)} s = ${(rows / seconds).toFixed(0)} rows/s, peak RSS ${peakMb.toFixed(0)} MB`);
  const detail = { rows, seconds };
  return [
    figure({
      id: 'ingest.largeTable.peakRssMb',
      name: `ingest: peak RSS of the process reading one ${rows}-row table`,
      value: peakMb,
      unit: 'MB',
      digits: 0,
      target: { op: '<=', value: 300 },
      detail,
    }),
    figure({
      id: 'ingest.largeTable.rowsPerSec',
      name: `ingest: rows of one ${rows}-row table queued (whole process, start-up included)`,
      value: rows / seconds,
      unit: 'rows/s',
      digits: 0,
      target: { op: '>=', value: 5_000 },
      detail,
    }),
  ];
}
