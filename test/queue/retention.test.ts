import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/paths.js';
import { claimRecordings } from '../../src/queue/claim-recordings.js';
import { openQueue, type Queue } from '../../src/queue/db.js';
import { dropItems } from '../../src/queue/drop-items.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { getItem } from '../../src/queue/get-item.js';
import { markFailed, markUnencodable } from '../../src/queue/mark-failed.js';
import { markUploaded } from '../../src/queue/mark-uploaded.js';
import { MIGRATIONS } from '../../src/queue/migrations.js';
import { replaceWithFlac } from '../../src/queue/replace-audio.js';
import { clearSpoolPath, spoolFilesToDelete, spoolUsage } from '../../src/queue/retention.js';
import { retryItems } from '../../src/queue/retry-items.js';
import { recountStates } from '../../src/queue/state-counts.js';
import { withholdRecordingAudio } from '../../src/queue/withhold-audio.js';
import { recording, tempQueue } from './helpers.js';

let q: Queue;
let cleanup: () => void;
beforeEach(() => ({ q, cleanup } = tempQueue()));
afterEach(() => cleanup());

const T = 1_714_536_000_000;
const DAY = 86_400_000;

describe('spool retention', () => {
  it('offers only uploaded or dropped recordings, after the retention time, and never failed or waiting ones', () => {
    const ids = [1, 2, 3, 4, 5].map((n) => enqueueRecording(q, { recording: recording(n, { filesize: 100 * n }), detections: [] }, { now: T }).recordingId!);
    const claimed = claimRecordings(q, { now: T, limit: 3, order: 'oldest' }).map((r) => r.id);
    expect(claimed).toEqual(ids.slice(0, 3));
    markUploaded(q, 'recording', ids[0], 11, { now: T + DAY });
    markFailed(q, 'recording', ids[1], { error: 'HTTP 422', code: 'ERR_HTTP_STATUS', now: T + DAY });
    // ids[2] stays sending; ids[3] pending; ids[4] dropped.
    dropItems(q, [{ kind: 'recording', id: ids[4] }], { now: T + 2 * DAY });

    expect(spoolUsage(q)).toEqual({ files: 5, bytes: 1500 });
    expect(spoolFilesToDelete(q, { retentionMs: 7 * DAY, now: T + 7 * DAY, limit: 10 })).toEqual([]);
    expect(spoolFilesToDelete(q, { retentionMs: 7 * DAY, now: T + 8 * DAY, limit: 10 })).toEqual([{ recordingId: ids[0], spoolPath: '/spool/rec-1.flac', filesize: 100 }]);
    const due = spoolFilesToDelete(q, { retentionMs: 7 * DAY, now: T + 30 * DAY, limit: 10 });
    expect(due.map((f) => f.recordingId)).toEqual([ids[0], ids[4]]);

    expect(clearSpoolPath(q, ids[0])).toBe(true);
    expect(clearSpoolPath(q, ids[0])).toBe(false);
    // Never for a recording that is not uploaded or dropped.
    expect(clearSpoolPath(q, ids[1])).toBe(false);
    expect(clearSpoolPath(q, ids[3])).toBe(false);
    expect(getItem(q, 'recording', ids[1])!.spoolPath).toBe('/spool/rec-2.flac');
    expect(spoolUsage(q)).toEqual({ files: 4, bytes: 1400 });
    expect(spoolFilesToDelete(q, { retentionMs: 7 * DAY, now: T + 30 * DAY, limit: 10 }).map((f) => f.recordingId)).toEqual([ids[4]]);
  });
});

describe('spoolUsage', () => {
  /** The truth the kept total must equal: every spooled file, read from the table. */
  const counted = () => q.db.prepare('SELECT COUNT(*) AS files, COALESCE(SUM(filesize), 0) AS bytes FROM recordings WHERE spool_path IS NOT NULL').get();

  it('follows every change of a waiting recording\'s spool file without reading the backlog', () => {
    const id = (n: number, overrides: Parameters<typeof recording>[1] = {}) =>
      enqueueRecording(q, { recording: recording(n, { filesize: 100 * n, ...overrides }), detections: [] }, { now: T }).recordingId!;
    // The second has no audio (none was spooled): it counts for nothing.
    const [r1, , r3, r4, r5] = [id(1), id(2, { spoolPath: null, audioFormat: null, filesize: null }), id(3, { spoolPath: '/spool/rec-3.wav', audioFormat: 'wav' }), id(4), id(5)];
    const steps: [string, () => unknown][] = [
      ['enqueue', () => {}],
      ['compaction: the WAV swapped for its FLAC', () => expect(replaceWithFlac(q, r3, '/spool/rec-3.wav', { spoolPath: '/spool/rec-3.flac', filesize: 120, durationS: 15, sampleRate: 48_000 })).toBe(true)],
      ['claim and upload', () => markUploaded(q, 'recording', claimRecordings(q, { now: T, limit: 1, order: 'oldest' })[0].id, 7)],
      ['unencodable audio', () => expect(markUnencodable(q, r4, '/spool/rec-4.flac', { error: 'not a WAV', code: 'ERR_AUDIO_INVALID' })).toBe(true)],
      ['retried by the operator', () => expect(retryItems(q, [{ kind: 'recording', id: r4 }]).retried).toHaveLength(1)],
      ['audio withheld', () => expect(withholdRecordingAudio(q, r5, 'a person was heard').outcome).toBe('dropped')],
      ['spool file of the uploaded recording deleted', () => expect(clearSpoolPath(q, r1)).toBe(true)],
    ];
    for (const [step, run] of steps) {
      run();
      expect({ step, usage: spoolUsage(q) }).toEqual({ step, usage: counted() });
      expect(recountStates(q)).toBe(false);
    }
    // r3 (its FLAC, 120), r4 (400, waiting again): r1's file is gone, r2 never had one, r5's withheld.
    expect(spoolUsage(q)).toEqual({ files: 2, bytes: 520 });
  });

  it('is rebuilt from the table after raw SQL', () => {
    enqueueRecording(q, { recording: recording(1, { filesize: 100 }), detections: [] }, { now: T });
    q.db.exec(`UPDATE recordings SET filesize = 150`); // around the queue's functions
    expect(spoolUsage(q)).toEqual({ files: 1, bytes: 100 });
    expect(recountStates(q)).toBe(true);
    expect(spoolUsage(q)).toEqual({ files: 1, bytes: 150 });
  });
});

describe('migration 14 on a queue of version 13', () => {
  it('keeps the spool total of the recordings waiting then', () => {
    const t = tempDir('station-agent-queue-m14-');
    try {
      const file = path.join(t.dir, 'queue.db');
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.transaction(() => {
        for (const m of MIGRATIONS.slice(0, 13)) {
          m.up(db);
          db.pragma(`user_version = ${m.version}`);
        }
      })();
      const insert = db.prepare(
        `INSERT INTO recordings (source_key, source_path, spool_path, audio_format, timestamp, time_source, filesize, state, waiting, next_attempt_at, created_at, updated_at)
         VALUES (?, '/a.wav', ?, 'flac', '2024-05-01T06:00:00+02:00', 'filename', ?, ?, ?, 0, 1, 1)`,
      );
      insert.run('pending', '/spool/p.flac', 100, 'pending', 1);
      insert.run('unknown', '/spool/u.flac', 200, 'unknown', 1);
      insert.run('no-audio', null, null, 'pending', 1);
      insert.run('uploaded', '/spool/d.flac', 400, 'uploaded', 0);
      db.exec(`UPDATE state_counts SET n = CASE state WHEN 'pending' THEN 2 WHEN 'unknown' THEN 1 WHEN 'uploaded' THEN 1 ELSE 0 END WHERE kind = 'recording'`);
      db.close();

      const migrated = openQueue(file);
      try {
        expect(migrated.db.prepare(`SELECT spool_files, spool_bytes FROM state_counts WHERE kind = 'recording' AND state = 'pending'`).get()).toEqual({
          spool_files: 2,
          spool_bytes: 300,
        });
        expect(spoolUsage(migrated)).toEqual({ files: 3, bytes: 700 });
        expect(recountStates(migrated)).toBe(false);
      } finally {
        migrated.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
