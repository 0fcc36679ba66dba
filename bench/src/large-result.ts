import { appendFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeAgentConfig } from './agent-config.js';
import { createMemoryGroup } from './cgroup.js';
import type { BenchOptions } from './options.js';
import { CLI_MAIN, formatMemory, memoryDetail, MemorySampler, split, startNodeIn, type MemoryKb } from './proc.js';
import { figure, type Figure } from './report.js';

/**
 * Huge result tables through `station-agent ingest` as its own process: rows queued per
 * second, and the process's peak memory (VmHWM, with RssAnon and RssFile from the sample
 * nearest the peak), which must not follow the file's size (tables are read as a stream
 * and queued in bounded batches; a Pi Zero 2 W has 512 MB). Two tables:
 * - a 25 MB one (`tableRows` rows, 265,000 by default): the size a station meets, peak at
 *   most 120 MB;
 * - one as large as the queue section's detections (a million rows, about 100 MB; with
 *   `--quick` 100,000): rows per second, and a peak of at most 300 MB.
 * Each runs in a memory group of a Pi Zero 2 W's RAM (PI_RAM_BYTES), as an operator's command
 * runs there: Node sizes V8's heap from the group's limit as it would from the Pi's memory.
 * Outside one, V8 sizes it from this machine's (24 GB here): its young generation alone then
 * holds tens of MB more garbage between collections than it would on a Pi.
 */
const PI_RAM_BYTES = 512 * 1024 * 1024;
export async function runLargeResult(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const table = await ingestTable(options.tableRows, path.join(dir, 'table'), log);
  const large = await ingestTable(options.queueDetections, path.join(dir, 'large'), log);
  return [
    figure({
      id: 'ingest.table.peakRssMb',
      name: `memory: peak RSS of ingest reading one ${(table.bytes / 1e6).toFixed(0)} MB, ${table.rows}-row table (${split(table.peak)})`,
      value: table.peak.vmHwm / 1024,
      unit: 'MB',
      digits: 1,
      target: { op: '<=', value: 120 },
      detail: { rows: table.rows, bytes: table.bytes, seconds: table.seconds, peak: memoryDetail(table.peak) },
    }),
    figure({
      id: 'ingest.largeTable.peakRssMb',
      name: `ingest: peak RSS of the process reading one ${large.rows}-row table (${split(large.peak)})`,
      value: large.peak.vmHwm / 1024,
      unit: 'MB',
      digits: 0,
      target: { op: '<=', value: 300 },
      detail: { rows: large.rows, bytes: large.bytes, seconds: large.seconds, peak: memoryDetail(large.peak) },
    }),
    figure({
      id: 'ingest.largeTable.rowsPerSec',
      name: `ingest: rows of one ${large.rows}-row table queued (whole process, start-up included)`,
      value: large.rows / large.seconds,
      unit: 'rows/s',
      digits: 0,
      target: { op: '>=', value: 5_000 },
      detail: { rows: large.rows, seconds: large.seconds },
    }),
  ];
}

interface TableRun {
  rows: number;
  bytes: number;
  seconds: number;
  peak: MemoryKb;
}

async function ingestTable(rows: number, dir: string, log: (line: string) => void): Promise<TableRun> {
  const cfg = writeAgentConfig({ dir, serviceUrl: 'http://127.0.0.1:9' });
  mkdirSync(cfg.inputDir, { recursive: true });
  const table = path.join(cfg.inputDir, '20250601_000000.BirdNET.selection.table.txt');
  writeFileSync(table, 'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tCommon Name\tScientific Name\tConfidence\n');
  for (let at = 0; at < rows; at += 50_000) {
    let chunk = '';
    for (let i = at; i < Math.min(rows, at + 50_000); i++) {
      chunk += `${i + 1}\tSpectrogram 1\t1\t${i * 3}\t${i * 3 + 3}\t150\t12000\tCommon Chiffchaff\tPhylloscopus collybita\t0.${5000 + (i % 5000)}\n`;
    }
    appendFileSync(table, chunk);
  }
  const bytes = statSync(table).size;
  const started = performance.now();
  const group = createMemoryGroup('station-agent-bench-ingest', PI_RAM_BYTES);
  if (!group) log('ingest: no memory group (cgroup v1 not writable): V8 sizes the heap from this machine\'s memory, not a Pi\'s');
  const child = startNodeIn([group], [CLI_MAIN, 'ingest', table, '--config', cfg.configPath, '--json']);
  const memory = new MemorySampler(child.pid, 25);
  // The last sample before the process is reaped: its VmHWM is the run's peak.
  child.process.on('exit', () => memory.sample());
  // 'close' (after 'exit'): its output has been read to the end.
  const [code] = await Promise.all([child.exited, new Promise((resolve) => child.process.once('close', resolve))]);
  group?.remove();
  const stdout = child.stdout();
  const stderr = child.stderrTail();
  const peak = memory.stop();
  const seconds = (performance.now() - started) / 1000;
  const queued = code === 0 ? (JSON.parse(stdout) as { detections: number }).detections : -1;
  if (queued !== rows) throw new Error(`ingest of a ${rows}-row table queued ${queued} (exit ${code}): ${stderr.slice(0, 500)}`);
  if (!peak) throw new Error(`ingest of a ${rows}-row table: its memory was never read`);
  log(`ingest of one ${rows}-row table (${(bytes / 1e6).toFixed(1)} MB): ${seconds.toFixed(1)} s = ${(rows / seconds).toFixed(0)} rows/s, peak ${formatMemory(peak, peak.vmHwm)}`);
  return { rows, bytes, seconds, peak };
}
