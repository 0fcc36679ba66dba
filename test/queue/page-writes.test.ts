import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/paths.js';
import { claimDetections } from '../../src/queue/claim-detections.js';
import { claimRecordings } from '../../src/queue/claim-recordings.js';
import { queueCounts } from '../../src/queue/counts.js';
import { openQueue, type Queue } from '../../src/queue/db.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { markFileDone } from '../../src/queue/ingested-files.js';
import { markRetry } from '../../src/queue/mark-retry.js';
import { markUploaded } from '../../src/queue/mark-uploaded.js';
import { MIGRATIONS } from '../../src/queue/migrations.js';
import { nextDueAt } from '../../src/queue/next-due.js';
import { spoolFilesToDelete, spoolUsage } from '../../src/queue/retention.js';
import { recountStates } from '../../src/queue/state-counts.js';
import { detection, recording, tempQueue } from './helpers.js';

/**
 * What each step of a recording's way through the queue appends to the WAL: every commit
 * writes each page it changed, whole, and SQLite rewrites an index whenever an UPDATE sets
 * one of its columns or a column of its partial WHERE. The pages are read from the real
 * WAL file (frame headers) and named by `dbstat`. The bench counts the bytes end to end
 * (`--only writes`); this names the pages, so an index that starts being written again by
 * a step that has no need of it fails here.
 */
let q: Queue;
let dbPath: string;
let cleanup: () => void;
let walOffset: number;
beforeEach(() => {
  ({ q, dbPath, cleanup } = tempQueue());
  walOffset = walSize();
});
afterEach(() => cleanup());

function walSize(): number {
  try {
    return readFileSync(`${dbPath}-wal`).length;
  } catch {
    return 0;
  }
}

/** The b-trees (tables, indexes) whose pages the commits since the last call appended to the WAL; page 1 (the header) left out. */
function pagesWritten(): string[] {
  const wal = readFileSync(`${dbPath}-wal`);
  const pageSize = q.db.pragma('page_size', { simple: true }) as number;
  const names = new Map((q.db.prepare('SELECT pageno, name FROM dbstat').all() as { pageno: number; name: string }[]).map((r) => [r.pageno, r.name]));
  const written = new Set<string>();
  for (let at = Math.max(walOffset, 32); at + 24 <= wal.length; at += 24 + pageSize) {
    const page = wal.readUInt32BE(at);
    if (page !== 1) written.add(names.get(page) ?? `page ${page}`);
  }
  walOffset = wal.length;
  return [...written].sort();
}

describe('pages a recording writes', () => {
  it('ingest, claim, outcome, detection claim and outcome each write only the b-trees they change', () => {
    const rec = recording(1);
    enqueueRecording(q, { recording: rec, detections: [detection(rec.sourceKey, 0), detection(rec.sourceKey, 1), detection(rec.sourceKey, 2)] });
    markFileDone(q, '/analyzer/rec-1.csv', 10, 1, 'queued');
    // No outbox entry without MQTT, no spool index entry for a waiting recording, no index by time of ingested files, no waiting index.
    expect(pagesWritten()).toEqual([
      'detections',
      'detections_due',
      'detections_recording',
      'ingested_files',
      'recordings',
      'recordings_due',
      'sqlite_autoindex_detections_1',
      'sqlite_autoindex_recordings_1',
      'state_counts',
    ]);

    const [claimed] = claimRecordings(q, { limit: 1, order: 'oldest' });
    // A claim leaves the spool index alone, and the kept counts (sending is counted when read).
    expect(pagesWritten()).toEqual(['recordings', 'recordings_due']);

    expect(queueCounts(q).recordings).toMatchObject({ pending: 0, sending: 1 });
    markUploaded(q, 'recording', claimed.id, 2 ** 33);
    // The trigger makes the detections due (recording_wait 0): their row and due pages.
    expect(pagesWritten()).toEqual([
      'detections',
      'detections_due',
      'recordings',
      'recordings_due',
      'recordings_remote_id',
      'recordings_spool',
      'state_counts',
    ]);

    const detections = claimDetections(q, { limit: 10, order: 'oldest' });
    expect(detections).toHaveLength(3);
    expect(pagesWritten()).toEqual(['detections', 'detections_due']);

    q.write(() => detections.forEach((d, k) => markUploaded(q, 'detection', d.id, 2 ** 34 + k)));
    expect(pagesWritten()).toEqual(['detections', 'detections_due', 'detections_remote_id', 'state_counts']);
    expect(queueCounts(q).oldestPendingAt).toBeNull();
  });

  it('a retried item still counts as waiting, since when it was queued', () => {
    const rec = recording(2);
    enqueueRecording(q, { recording: rec, detections: [] }, { now: 1_000 });
    pagesWritten();
    const [claimed] = claimRecordings(q, { limit: 1, order: 'oldest', now: 2_000 });
    markRetry(q, 'recording', claimed.id, { error: 'HTTP 503', code: 'ERR_HTTP_STATUS', nextAttemptAt: 60_000, now: 3_000 });
    expect(queueCounts(q).oldestPendingAt).toBe(1_000);
  });
});

describe('migration 8 on a queue of version 7', () => {
  it('sets waiting for the items still to go, and the spool, waiting and retention readings are the same', () => {
    const t = tempDir('station-agent-queue-m8-');
    try {
      const file = path.join(t.dir, 'queue.db');
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      for (const m of MIGRATIONS.slice(0, 7)) {
        db.exec('BEGIN');
        m.up(db);
        db.pragma(`user_version = ${m.version}`);
        db.exec('COMMIT');
      }
      // Rows as a version-7 agent left them: one per state, with and without spool files.
      const insert = db.prepare(
        `INSERT INTO recordings (source_key, source_path, spool_path, audio_format, timestamp, time_source, filesize, state, next_attempt_at, remote_id, created_at, updated_at)
         VALUES (?, '/a.wav', ?, 'wav', '2024-05-01T06:00:00+02:00', 'filename', ?, ?, 0, ?, ?, ?)`,
      );
      insert.run('pending', '/spool/p.wav', 100, 'pending', null, 5_000, 5_000);
      insert.run('unknown', '/spool/u.wav', 200, 'unknown', null, 4_000, 6_000);
      insert.run('uploaded', '/spool/d.wav', 400, 'uploaded', 7, 1_000, 2_000);
      insert.run('failed', '/spool/f.wav', 800, 'failed', null, 500, 900);
      insert.run('uploaded-gone', null, 1_600, 'uploaded', 8, 100, 200);
      db.prepare(
        `INSERT INTO detections (recording_id, dedupe_key, timestamp, start_s, end_s, scientific_name, common_name, confidence, state, next_attempt_at, created_at, updated_at)
         VALUES (1, ?, '2024-05-01T06:00:00+02:00', 0, 3, 'Turdus merula', 'Eurasian Blackbird', 0.9, ?, 0, ?, ?)`,
      ).run('d-sending', 'sending', 3_000, 3_000);
      // The counts a version-7 agent kept, `sending` in its own row.
      const kept = db.prepare(`UPDATE state_counts SET n = ? WHERE kind = ? AND state = ?`);
      for (const [kind, state, n] of [['recording', 'pending', 1], ['recording', 'unknown', 1], ['recording', 'uploaded', 2], ['recording', 'failed', 1], ['detection', 'sending', 1]] as const) {
        kept.run(n, kind, state);
      }
      db.close();

      const migrated = openQueue(file);
      try {
        const waiting = migrated.db.prepare(`SELECT source_key, waiting FROM recordings ORDER BY id`).all();
        expect(waiting).toEqual([
          { source_key: 'pending', waiting: 1 },
          { source_key: 'unknown', waiting: 1 },
          { source_key: 'uploaded', waiting: 0 },
          { source_key: 'failed', waiting: 0 },
          { source_key: 'uploaded-gone', waiting: 0 },
        ]);
        expect(migrated.db.prepare(`SELECT waiting FROM detections`).pluck().get()).toBe(1);
        const counts = queueCounts(migrated);
        expect(counts.oldestPendingAt).toBe(3_000);
        expect(counts.detections).toMatchObject({ pending: 0, sending: 1 });
        expect(counts.recordings).toMatchObject({ pending: 1, sending: 0, unknown: 1, uploaded: 2, failed: 1 });
        expect(recountStates(migrated)).toBe(false);
        // Every spooled file: waiting, failed and uploaded alike.
        expect(spoolUsage(migrated)).toEqual({ files: 4, bytes: 1_500 });
        expect(spoolFilesToDelete(migrated, { retentionMs: 0, now: 10_000, limit: 10 }).map((f) => f.spoolPath)).toEqual(['/spool/d.wav']);
        expect(nextDueAt(migrated, 10_000)).toBeNull();
        expect(migrated.db.prepare(`SELECT name FROM sqlite_schema WHERE name IN ('ingested_files_at', 'recordings_waiting', 'detections_waiting')`).all()).toEqual([]);
      } finally {
        migrated.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
