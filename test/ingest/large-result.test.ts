import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openQueue, queueCounts } from '../../src/queue/index.js';
import { buildCli, CLI_MAIN, writeCliConfig } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';

/**
 * A result table of a million rows (about 100 MB: a combined table, or a runaway analyzer)
 * through `station-agent ingest` as a process: the file is read as a stream and queued in
 * bounded batches, so the process's peak memory does not follow the file's size (before,
 * 1M rows took it to over 800 MB: an OOM kill on a 512 MB Pi). The speed is in the bench.
 */
const ROWS = 1_000_000;
/** Several batches (BATCH_SIZE detections each) read once, then again with more. */
const GROWN_FIRST = 12_000;
const GROWN_ROWS = 27_000;
/** Generous: Node and SQLite alone take about 100 MB; a whole-file read of this table took 800. */
const PEAK_RSS_LIMIT_MB = 300;

const HEADER = 'Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tSpecies Code\tCommon Name\tScientific Name\tConfidence\n';

function rows(from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) s += `${i + 1}\tSpectrogram 1\t1\t${i * 3}\t${i * 3 + 3}\t150\t12000\tcomchi1\tCommon Chiffchaff\tPhylloscopus collybita\t0.${5000 + (i % 5000)}\n`;
  return s;
}

function appendRows(file: string, from: number, to: number): void {
  for (let at = from; at < to; at += 50_000) appendFileSync(file, rows(at, Math.min(to, at + 50_000)));
}

/** Runs `station-agent ingest` and reads its peak RSS (VmHWM) from /proc while it runs. */
function ingestMeasured(args: string[]): Promise<{ code: number; stdout: string; stderr: string; peakMb: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, 'ingest', ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC' } });
    let stdout = '';
    let stderr = '';
    let peakKb = 0;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peakKb = Math.max(peakKb, Number(m[1]));
      } catch {
        // Exited between two polls.
      }
    }, 25);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ code: code ?? 1, stdout, stderr, peakMb: peakKb / 1024 });
    });
  });
}

describe('station-agent ingest of a million-row table', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    await buildCli();
    tmp = tempDir('large-result-');
  }, 180_000);
  afterAll(() => tmp?.cleanup());

  function setup(name: string): { config: string; dataDir: string; table: string } {
    const dir = path.join(tmp.dir, name);
    const input = path.join(dir, 'input');
    const dataDir = path.join(dir, 'data');
    const config = writeCliConfig(path.join(dir, 'config.json'), {
      baseUrl: 'http://127.0.0.1:9',
      token: 'station-token-0123456789abcdef',
      dataDir,
      inputDir: input,
      extra: { input: { dir: input, minConfidence: 0.1 } },
    });
    const table = path.join(dir, 'ST_20250601_000000.BirdNET.selection.table.txt');
    writeFileSync(table, HEADER);
    return { config, dataDir, table };
  }

  function queuedRows(dataDir: string): { pending: number; distinct: unknown } {
    const q = openQueue(path.join(dataDir, 'queue.db'));
    try {
      return { pending: queueCounts(q).detections.pending, distinct: q.db.prepare('SELECT COUNT(DISTINCT start_s) FROM detections').pluck().get() };
    } finally {
      q.close();
    }
  }

  it('queues every row exactly once with bounded memory', async () => {
    const { config, dataDir, table } = setup('million');
    appendRows(table, 0, ROWS);
    const run = await ingestMeasured([table, '--config', config, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ detections: ROWS, errors: [] });
    expect(run.peakMb).toBeGreaterThan(0);
    expect(run.peakMb).toBeLessThan(PEAK_RSS_LIMIT_MB);
    expect(queuedRows(dataDir)).toEqual({ pending: ROWS, distinct: ROWS });
  }, 600_000);

  it('reads a table again across its batches when it grew, adding only the new rows', async () => {
    const { config, dataDir, table } = setup('grown');
    appendRows(table, 0, GROWN_FIRST);
    const first = await ingestMeasured([table, '--config', config, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ detections: GROWN_FIRST, errors: [] });

    // The analyzer went on writing (or the first read was cut by a crash): the whole file is
    // read again, batch by batch; the rows queued before are known by their keys.
    appendRows(table, GROWN_FIRST, GROWN_ROWS);
    const second = await ingestMeasured([table, '--config', config, '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ detections: GROWN_ROWS - GROWN_FIRST, errors: [] });
    expect(queuedRows(dataDir)).toEqual({ pending: GROWN_ROWS, distinct: GROWN_ROWS });
  }, 300_000);
});
