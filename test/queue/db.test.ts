import { closeSync, existsSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/paths.js';
import { openQueue, type Queue } from '../../src/queue/db.js';
import { QueueError } from '../../src/queue/errors.js';
import { MIGRATIONS, SCHEMA_VERSION, migrate, type Migration } from '../../src/queue/migrations.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { queueCounts } from '../../src/queue/counts.js';
import { detection, recording } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

function temp(): string {
  const t = tempDir('station-agent-queue-db-');
  cleanups.push(t.cleanup);
  return t.dir;
}

function open(dbPath: string): Queue {
  const q = openQueue(dbPath);
  cleanups.unshift(() => q.close());
  return q;
}

describe('openQueue', () => {
  it('creates the parent folder and sets WAL, synchronous=FULL, busy_timeout, foreign_keys, a 2 MB page cache', () => {
    const dbPath = path.join(temp(), 'a', 'b', 'queue.db');
    const q = open(dbPath);
    expect(existsSync(dbPath)).toBe(true);
    expect(q.path).toBe(dbPath);
    expect(q.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(q.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(q.db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(q.db.pragma('foreign_keys', { simple: true })).toBe(1);
    // Negative: KiB. better-sqlite3's build would otherwise give each connection 16 MB.
    expect(q.db.pragma('cache_size', { simple: true })).toBe(-2048);
  });

  it('migrates an empty file to the latest version, and re-opening applies nothing', () => {
    const dbPath = path.join(temp(), 'queue.db');
    const q = open(dbPath);
    expect(q.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const tables = q.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all();
    expect(tables).toEqual(['detections', 'ingested_files', 'meta', 'recordings', 'species_sightings', 'state_counts']);
    enqueueRecording(q, { recording: recording(1), detections: [detection('k', 1)] });
    q.close();

    const again = open(dbPath);
    expect(again.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(migrate(again.db, dbPath)).toEqual([]);
    expect(queueCounts(again).recordings.pending).toBe(1);
    expect(queueCounts(again).detections.pending).toBe(1);
  });

  it('applies only the missing migrations, each with its version, in a transaction', () => {
    const db = new Database(path.join(temp(), 'm.db'));
    cleanups.unshift(() => db.close());
    const extra: Migration[] = [
      ...MIGRATIONS,
      { version: MIGRATIONS.length + 1, name: 'add x', up: (d) => d.exec('CREATE TABLE x (a INTEGER)') },
      {
        version: MIGRATIONS.length + 2,
        name: 'broken',
        up: (d) => {
          d.exec('CREATE TABLE y (a INTEGER)');
          throw new Error('boom');
        },
      },
    ];
    expect(migrate(db, 'm.db', extra.slice(0, -1))).toEqual([...MIGRATIONS.map((m) => m.version), MIGRATIONS.length + 1]);
    expect(() => migrate(db, 'm.db', extra)).toThrow('boom');
    // The broken migration left nothing behind: no table y, version unchanged.
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length + 1);
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'y'`).get()).toBeUndefined();
  });

  it('refuses a database from a newer agent, naming the path', () => {
    const dbPath = path.join(temp(), 'queue.db');
    const db = new Database(dbPath);
    db.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    db.close();
    expect(() => openQueue(dbPath)).toThrow(QueueError);
    expect(() => openQueue(dbPath)).toThrow(new RegExp(`${dbPath}.*newer`));
  });

  it('throws QueueError ERR_QUEUE naming the path when the file is not a database', () => {
    const dbPath = path.join(temp(), 'queue.db');
    writeFileSync(dbPath, Buffer.from('this is not a database, just garbage '.repeat(200)));
    let caught: unknown;
    try {
      openQueue(dbPath);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(QueueError);
    expect((caught as QueueError).code).toBe('ERR_QUEUE');
    expect((caught as QueueError).message).toContain(dbPath);
    expect((caught as QueueError).message).toMatch(/not a SQLite database or is corrupt/);
  });

  it('reports a damaged page through integrityCheck', () => {
    const dbPath = path.join(temp(), 'queue.db');
    const q = open(dbPath);
    expect(q.integrityCheck()).toEqual({ ok: true, problems: [] });
    q.db.transaction(() => {
      for (let i = 0; i < 400; i++) {
        enqueueRecording(q, { recording: recording(i), detections: [detection(`k${i}`, 1), detection(`k${i}`, 2)] });
      }
    })();
    q.db.pragma('wal_checkpoint(TRUNCATE)');
    q.close();
    // Overwrite the root page of the detections' state index with garbage.
    const db = new Database(dbPath, { readonly: true });
    const rootpage = db.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'detections_due'`).pluck().get() as number;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const handle = openSync(dbPath, 'r+');
    writeSync(handle, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (rootpage - 1) * pageSize);
    closeSync(handle);

    const report = open(dbPath).integrityCheck();
    expect(report.ok).toBe(false);
    expect(report.problems.length).toBeGreaterThan(0);
  });

  it('lets a second connection (the CLI) read while the first writes, and write after it commits', () => {
    const dbPath = path.join(temp(), 'queue.db');
    const daemon = open(dbPath);
    const cli = openQueue(dbPath, { busyTimeoutMs: 2_000 });
    cleanups.unshift(() => cli.close());
    enqueueRecording(daemon, { recording: recording(1), detections: [] });

    // The daemon is inside a write transaction: the CLI still reads the last commit.
    daemon.db.exec('BEGIN IMMEDIATE');
    enqueueRecording(daemon, { recording: recording(2), detections: [] });
    expect(queueCounts(cli).recordings.pending).toBe(1);
    daemon.db.exec('COMMIT');
    expect(queueCounts(cli).recordings.pending).toBe(2);

    // And the CLI can write (e.g. `queue retry`) with the daemon's connection open.
    enqueueRecording(cli, { recording: recording(3), detections: [] });
    expect(queueCounts(daemon).recordings.pending).toBe(3);
  });
});
