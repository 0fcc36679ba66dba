import { copyFileSync, mkdirSync, readdirSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { ingestPaths } from '../../src/ingest/backfill.js';
import { createIngestContext } from '../../src/ingest/context.js';
import { classifyPath, type ResultClass } from '../../src/ingest/formats.js';
import { Pairing } from '../../src/ingest/pairing.js';
import pino from 'pino';
import { openQueue, queueCounts, type Queue } from '../../src/queue/index.js';
import { realFixture, tempDir } from '../helpers/paths.js';

let cleanup: (() => void) | undefined;
let queue: Queue | undefined;
afterEach(() => {
  queue?.close();
  queue = undefined;
  cleanup?.();
});

function setup() {
  const t = tempDir('backfill-');
  cleanup = t.cleanup;
  const config = parseConfig({
    service: { baseUrl: 'http://127.0.0.1:9', token: 'x' },
    station: { latitude: 52.52, longitude: 13.4, timezone: 'Europe/Berlin' },
    input: { dir: path.join(t.dir, 'input'), minConfidence: 0.15 },
    dataDir: path.join(t.dir, 'data'),
  });
  queue = openQueue(path.join(t.dir, 'data', 'queue.db'));
  return { dir: t.dir, config, queue };
}

/** An SD card dump: a WAV without a time in its name, and its results. */
function dump(dir: string, mtime: Date): void {
  mkdirSync(dir, { recursive: true });
  const src = realFixture('birdnet-analyzer_ea464544_2022-03-02');
  for (const f of ['soundscape.wav', 'soundscape.BirdNET.results.csv']) {
    copyFileSync(path.join(src, f), path.join(dir, f));
    utimesSync(path.join(dir, f), mtime, mtime);
  }
}

describe('ingestPaths (station-agent ingest)', () => {
  it('queues a dump once, even when it is copied again elsewhere with new modification times', async () => {
    const { dir, config, queue: q } = setup();
    dump(path.join(dir, 'card-a'), new Date('2025-06-01T10:00:10Z'));
    const first = await ingestPaths({ config, queue: q, paths: [path.join(dir, 'card-a')] });
    expect(first.recordings).toBe(1);
    expect(first.detections).toBe(3);
    expect(first.errors).toEqual([]);

    const again = await ingestPaths({ config, queue: q, paths: [path.join(dir, 'card-a')] });
    expect(again.detections).toBe(0);
    expect(again.skipped.map((s) => s.reason)).toEqual(['already ingested']);

    // `cp` without -p: same recording, new times, another folder.
    dump(path.join(dir, 'card-b'), new Date('2026-01-01T00:00:00Z'));
    const copy = await ingestPaths({ config, queue: q, paths: [path.join(dir, 'card-b')] });
    expect(copy.detections).toBe(0);
    const counts = queueCounts(q);
    expect(counts.recordings.pending).toBe(1);
    expect(counts.detections.pending).toBe(3);
    // One spool copy of the audio, not two.
    expect(readdirSync(path.join(dir, 'data', 'spool')).filter((f) => f.endsWith('.wav'))).toHaveLength(1);
  });

  it('finds audio a crash left under its spool name instead of losing it', async () => {
    const { dir, config, queue: q } = setup();
    const input = path.join(dir, 'stream');
    mkdirSync(input, { recursive: true });
    const name = '2024-02-24-birdnet-16:19:37.wav';
    const json = JSON.stringify({
      file_name: name,
      timestamp: '2024-02-24T16:19:37+01:00',
      delay: 0,
      detections: [{ start: 0, common_name: 'Eurasian Magpie', confidence: 0.9 }],
    });
    // First run: the audio is moved into the spool, then the agent dies before committing.
    copyFileSync(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), path.join(input, name));
    writeFileSync(path.join(input, `${name}.json`), json);
    const labels = realFixture('birdnet-analyzer_labels_V2.4', 'BirdNET_GLOBAL_6K_V2.4_Labels.txt');
    const withLabels = { ...config, input: { ...config.input, labels } };
    const dry = await ingestPaths({ config: withLabels, queue: q, paths: [input] });
    expect(dry.recordings).toBe(1);
    // Simulate the crash's leftovers: the queue forgot it, the spool still has the file, the analyzer deleted its WAV.
    const spooled = readdirSync(path.join(dir, 'data', 'spool')).filter((f) => f.endsWith('.wav'));
    expect(spooled).toHaveLength(1);
    q.db.exec('DELETE FROM detections; DELETE FROM recordings; DELETE FROM ingested_files;');
    renameSync(path.join(input, name), path.join(dir, 'gone.wav'));

    const again = await ingestPaths({ config: withLabels, queue: q, paths: [input] });
    expect(again.recordings).toBe(1);
    expect(again.detections).toBe(1);
    const row = q.db.prepare('SELECT spool_path, audio_format FROM recordings').get() as { spool_path: string; audio_format: string };
    expect(path.basename(row.spool_path)).toBe(spooled[0]);
    expect(row.audio_format).toBe('wav');
  });
});

describe('ingestPaths: what the operator named', () => {
  it('names a file it does not read, and --force looks again at files already ingested', async () => {
    const { dir, config, queue: q } = setup();
    const notes = path.join(dir, 'notes.txt');
    writeFileSync(notes, 'field notes');
    const table = path.join(dir, 'ST_20250603_041600.BirdNET.selection.table.txt');
    copyFileSync(realFixture('birdnet-analyzer_ccf4b228_2023-03-28', 'soundscape.BirdNET.selection.table.txt'), table);
    // No labels file: the table's common names cannot be resolved.
    const first = await ingestPaths({ config, queue: q, paths: [notes, table] });
    expect(first.errors).toEqual([{ file: notes, message: expect.stringContaining('not a result file the agent reads') }]);
    expect(first.detections).toBe(0);
    expect(first.skipped[0].reason).toContain('no readable detection');

    const labels = realFixture('birdnet-analyzer_labels_V2.4', 'BirdNET_GLOBAL_6K_V2.4_Labels.txt');
    const fixed = { ...config, input: { ...config.input, labels } };
    const again = await ingestPaths({ config: fixed, queue: q, paths: [table] });
    expect(again.skipped.map((s) => s.reason)).toEqual(['already ingested']);
    const forced = await ingestPaths({ config: fixed, queue: q, paths: [table], force: true });
    expect(forced.detections).toBeGreaterThan(0);
    expect(forced.errors).toEqual([]);
  });
});

describe('ingestPaths: several files per commit', () => {
  /** 40 analyzer CSVs named like AudioMoth recordings, 5 rows each, no audio. */
  function resultFolder(dir: string): string[] {
    mkdirSync(dir, { recursive: true });
    const files: string[] = [];
    for (let n = 0; n < 40; n++) {
      const base = `20250601_06${String(n).padStart(2, '0')}00`;
      const rows = ['Start (s),End (s),Scientific name,Common name,Confidence,File'];
      for (let k = 0; k < 5; k++) rows.push(`${k * 3}.0,${k * 3 + 3}.0,Turdus merula,Eurasian Blackbird,0.${50 + n + k},/data/${base}.wav`);
      const file = path.join(dir, `${base}.BirdNET.results.csv`);
      writeFileSync(file, `${rows.join('\n')}\n`);
      files.push(file);
    }
    return files;
  }

  const snapshot = (q: Queue) => ({
    detections: q.db.prepare('SELECT dedupe_key, timestamp, start_s, confidence, state FROM detections ORDER BY dedupe_key').all(),
    files: q.db.prepare('SELECT path, size, mtime_ms, outcome FROM ingested_files ORDER BY path').all(),
    // The kept counts, but not when the oldest item was queued (the runs are apart in time).
    counts: { ...queueCounts(q), oldestPendingAt: undefined },
  });

  it('leaves the same rows and file marks as ingesting one file per commit (the watcher), and holds no transaction open', async () => {
    const { dir, config, queue: q } = setup();
    const files = resultFolder(path.join(dir, 'input', 'card'));
    const result = await ingestPaths({ config, queue: q, paths: [path.join(dir, 'input', 'card')] });
    expect(result.errors).toEqual([]);
    expect(result.detections).toBe(200);
    expect(q.db.inTransaction).toBe(false);
    const batched = snapshot(q);
    expect(batched.files).toHaveLength(40);

    // The same files through the daemon's path: Pairing without a write batch, each file its own commits.
    const other = openQueue(path.join(dir, 'data2', 'queue.db'));
    try {
      const ctx = await createIngestContext({ ...config, dataDir: path.join(dir, 'data2') }, other, pino({ level: 'silent' }));
      const pairing = new Pairing({ ctx, mode: 'auto', jsonTimeoutMs: 0, audioWaitMs: 0, recheck: () => {} });
      for (const file of files) void pairing.scheduleIngest(file, statSync(file), classifyPath(file) as ResultClass);
      await pairing.idle();
      expect(snapshot(other)).toEqual(batched);
    } finally {
      other.close();
    }

    // A second run finds every file done: the marks were committed with their rows.
    const again = await ingestPaths({ config, queue: q, paths: [path.join(dir, 'input', 'card')] });
    expect(again.detections).toBe(0);
    expect(again.skipped.filter((k) => k.reason === 'already ingested')).toHaveLength(40);
  });
});
