import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueCounts } from '../../src/queue/index.js';
import { CLI_MAIN, buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { fixture, realFixture, tempDir } from '../helpers/paths.js';
import { openTestQueue } from './seed.js';

/**
 * `ingest` over a folder of real analyzer output (copied into a temp folder per
 * run; the originals stay in ../shared): a 10 s soundscape with its CSV and
 * Audacity results, a Raven table of another version in a subfolder (common names
 * only: resolved through the real labels file), and a damaged CSV.
 */
describe('station-agent ingest', () => {
  let tmp: ReturnType<typeof tempDir>;
  let input: string;
  let dataDir: string;
  let config: string;

  beforeAll(async () => {
    await buildCli();
    tmp = tempDir('cli-ingest-');
    input = path.join(tmp.dir, 'input');
    mkdirSync(path.join(input, 'sub'), { recursive: true });
    const example = 'birdnet-analyzer_ea464544_2022-03-02';
    for (const name of ['soundscape.wav', 'soundscape.BirdNET.results.csv', 'soundscape.BirdNET.results.txt']) {
      copyFileSync(realFixture(example, name), path.join(input, name));
    }
    copyFileSync(realFixture('birdnet-analyzer_ccf4b228_2023-03-28', 'soundscape.BirdNET.selection.table.txt'), path.join(input, 'sub', 'later_20230328_060000.BirdNET.selection.table.txt'));
    copyFileSync(fixture('results', 'garbage.BirdNET.results.csv'), path.join(input, 'sub', 'garbage_20230328_070000.BirdNET.results.csv'));
    dataDir = path.join(tmp.dir, 'data');
    config = writeCliConfig(path.join(tmp.dir, 'config.json'), {
      baseUrl: 'http://127.0.0.1:9',
      dataDir,
      inputDir: input,
      extra: { input: { dir: input, minConfidence: 0.1, labels: realFixture('birdnet-analyzer_labels_V2.4', 'BirdNET_GLOBAL_6K_V2.4_Labels.txt') } },
    });
  }, 180_000);

  afterAll(() => tmp?.cleanup());

  it('--dry-run counts what would be queued and creates no queue', async () => {
    const result = await runCli(['ingest', input, '--dry-run', '--json', '--config', config]);
    expect(result.code).toBe(0);
    const json = parseJson(result);
    expect(json.dryRun).toBe(true);
    expect(json.recordings).toBeGreaterThanOrEqual(2);
    expect(json.detections).toBeGreaterThan(0);
    expect(json.errors).toEqual([]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('queues the folder, prints the summary, and adds nothing the second time', async () => {
    const first = await runCli(['ingest', input, '--config', config]);
    expect(first.code).toBe(0);
    const summary = /^queued (\d+) recordings, (\d+) detections$/m.exec(first.stdout);
    expect(summary).not.toBeNull();
    const [recordings, detections] = [Number(summary![1]), Number(summary![2])];
    expect(recordings).toBeGreaterThanOrEqual(2);
    // Piped stderr: no progress bar, only log lines (the damaged CSV's rows).
    expect(first.stderr).not.toMatch(/[\u2588\u2591]|\r/);
    expect(first.stderr).toContain('garbage_20230328_070000.BirdNET.results.csv line 3');

    const q = openTestQueue(dataDir);
    const counts = queueCounts(q);
    q.close();
    expect(counts.detections.pending).toBe(detections);
    expect(counts.recordings.pending).toBeGreaterThanOrEqual(1);

    const again = parseJson(await runCli(['ingest', input, '--json', '--config', config]));
    expect(again).toMatchObject({ dryRun: false, recordings: 0, detections: 0, errors: [] });
    expect(again.skipped.length).toBeGreaterThanOrEqual(3);
    expect(again.skipped.every((s: { reason: string }) => s.reason === 'already ingested')).toBe(true);

    const status = parseJson(await runCli(['status', '--json', '--offline', '--config', config]));
    expect(status.queue.detections.pending).toBe(detections);
  });

  it('reports a path that does not exist as an error and exits 1', async () => {
    const missing = path.join(tmp.dir, 'no-such-folder');
    const result = await runCli(['ingest', missing, '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`failed 1 files:\n  ${missing}: ${missing}: no such file or folder`);
  });

  it('shows a progress bar on a terminal', async () => {
    const other = writeCliConfig(path.join(tmp.dir, 'config-tty.json'), {
      baseUrl: 'http://127.0.0.1:9',
      dataDir: path.join(tmp.dir, 'data-tty'),
      inputDir: input,
      extra: { input: { dir: input, minConfidence: 0.1, labels: realFixture('birdnet-analyzer_labels_V2.4', 'BirdNET_GLOBAL_6K_V2.4_Labels.txt') } },
    });
    const screen = await new Promise<string>((resolve, reject) => {
      execFile(
        'script',
        ['-qec', `'${process.execPath}' '${CLI_MAIN}' ingest '${input}' --dry-run --config '${other}'`, '/dev/null'],
        { env: { PATH: process.env.PATH, TZ: 'UTC', TERM: 'xterm' }, timeout: 30_000 },
        (err, stdout) => (err && err.killed ? reject(new Error(`script timed out: ${err.message}`)) : resolve(stdout)),
      ).stdin!.end();
    });
    expect(screen).toMatch(/\d+\/\d+ result files/);
    expect(screen).toContain('would queue');
  });

  it('takes a finished result file whose last line has no line end (as one analyzer version writes it), once it is a few seconds old', async () => {
    const own = tempDir('cli-ingest-noeol-');
    try {
      const folder = path.join(own.dir, 'input');
      mkdirSync(folder);
      // This real CSV ends without a line end.
      const file = path.join(folder, 'ST_20220317_060000.BirdNET.results.csv');
      copyFileSync(realFixture('birdnet-analyzer_6e477a19_2022-03-17', 'soundscape.BirdNET.results.csv'), file);
      const cfg = writeCliConfig(path.join(own.dir, 'config.json'), {
        baseUrl: 'http://127.0.0.1:9',
        dataDir: path.join(own.dir, 'data'),
        inputDir: folder,
        extra: { input: { dir: folder, minConfidence: 0.1, stableMs: 1_000 } },
      });
      // Just written: it may still be growing, so it is left for a later run.
      const fresh = await runCli(['ingest', folder, '--json', '--config', cfg]);
      expect(fresh.code, fresh.stderr).toBe(0);
      expect(parseJson(fresh).detections).toBe(0);
      expect(JSON.stringify(parseJson(fresh).skipped)).toContain('no line end');
      // Unchanged for longer than the backfill's settle time: taken as it is.
      const past = new Date(Date.now() - 60_000);
      utimesSync(file, past, past);
      const settled = await runCli(['ingest', folder, '--json', '--config', cfg]);
      expect(settled.code, settled.stderr).toBe(0);
      expect(parseJson(settled).detections).toBeGreaterThan(0);
    } finally {
      own.cleanup();
    }
  });

  it('explains itself in --help', async () => {
    const result = await runCli(['ingest', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Examples:');
    expect(result.stdout).toContain('--dry-run');
  });
});
