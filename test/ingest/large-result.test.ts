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
const FIRST_PART = 400_000;
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

  it('queues every row exactly once with bounded memory, also when the file grew after a first read', async () => {
    const input = path.join(tmp.dir, 'input');
    const dataDir = path.join(tmp.dir, 'data');
    const config = writeCliConfig(path.join(tmp.dir, 'config.json'), {
      baseUrl: 'http://127.0.0.1:9',
      token: 'station-token-0123456789abcdef',
      dataDir,
      inputDir: input,
      extra: { input: { dir: input, minConfidence: 0.1 } },
    });
    const table = path.join(tmp.dir, 'ST_20250601_000000.BirdNET.selection.table.txt');
    writeFileSync(table, HEADER);
    appendRows(table, 0, FIRST_PART);

    const first = await ingestMeasured([table, '--config', config, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ detections: FIRST_PART, errors: [] });

    // The analyzer went on writing: the whole file is read again, batch by batch; the rows
    // queued the first time are recognised by their keys, only the new ones are added.
    appendRows(table, FIRST_PART, ROWS);
    const second = await ingestMeasured([table, '--config', config, '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ detections: ROWS - FIRST_PART, errors: [] });
    expect(second.peakMb).toBeGreaterThan(0);
    expect(second.peakMb).toBeLessThan(PEAK_RSS_LIMIT_MB);

    const q = openQueue(path.join(dataDir, 'queue.db'));
    try {
      expect(queueCounts(q).detections.pending).toBe(ROWS);
      const distinct = q.db.prepare('SELECT COUNT(DISTINCT start_s) FROM detections').pluck().get();
      expect(distinct).toBe(ROWS);
    } finally {
      q.close();
    }
  }, 600_000);
});
