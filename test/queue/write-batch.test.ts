import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRecording, markFileDone, queueCounts } from '../../src/queue/index.js';
import { WriteBatch } from '../../src/queue/write-batch.js';
import { detection, recording, tempQueue } from './helpers.js';

/** Several queue operations under one commit, bounded by rows and by time, over a real queue file. */
let world: ReturnType<typeof tempQueue> | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

function enqueueFile(q: ReturnType<typeof tempQueue>['q'], n: number): void {
  const r = recording(n);
  enqueueRecording(q, { recording: r, detections: [0, 1, 2].map((i) => detection(r.sourceKey, i)) });
  markFileDone(q, `/input/rec-${n}.csv`, 100, 1_000, 'queued');
}

describe('WriteBatch', () => {
  it('puts the operations of several files into one commit; another connection sees them only after it', () => {
    world = tempQueue();
    const { q, dbPath } = world;
    const other = new Database(dbPath, { readonly: true });
    const seen = () => (other.prepare('SELECT COUNT(*) FROM ingested_files').pluck().get() as number);
    const batch = new WriteBatch(q, { maxRows: 1_000_000, maxMs: 1_000_000 });
    batch.begin();
    for (let n = 0; n < 5; n++) {
      enqueueFile(q, n);
      batch.commitIfFull();
    }
    expect(batch.commits).toBe(0);
    expect(seen()).toBe(0);
    batch.commit();
    expect(batch.commits).toBe(1);
    expect(seen()).toBe(5);
    expect(queueCounts(q).detections.pending).toBe(15);
    other.close();
  });

  it('commits when it reaches its row bound or its time bound, and goes on in a new batch', () => {
    world = tempQueue();
    const { q } = world;
    const byRows = new WriteBatch(q, { maxRows: 8, maxMs: 1_000_000 });
    byRows.begin();
    for (let n = 0; n < 4; n++) {
      enqueueFile(q, n); // a recording, 3 detections, a file mark and the kept counts: more than 8 rows changed by two files
      byRows.commitIfFull();
    }
    byRows.commit();
    expect(byRows.commits).toBeGreaterThanOrEqual(2);
    expect(byRows.commits).toBeLessThanOrEqual(4);

    let clock = 0;
    const byTime = new WriteBatch(q, { maxRows: 1_000_000, maxMs: 100 }, () => clock);
    byTime.begin();
    enqueueFile(q, 10);
    byTime.commitIfFull();
    expect(byTime.commits).toBe(0);
    clock = 100;
    byTime.commitIfFull();
    expect(byTime.commits).toBe(1);
    expect(q.db.inTransaction).toBe(true); // the next batch is open
    byTime.commit();
    expect(q.db.inTransaction).toBe(false);
  });

  it('a failed operation undoes only its own writes; rollback undoes the batch', () => {
    world = tempQueue();
    const { q } = world;
    const batch = new WriteBatch(q, { maxRows: 1_000_000, maxMs: 1_000_000 });
    batch.begin();
    enqueueFile(q, 0);
    // A detection of a recording that does not exist: refused by the foreign key, in its own savepoint.
    expect(() => q.write(() => {
      markFileDone(q, '/input/bad.csv', 1, 1, 'queued');
      q.db.prepare('INSERT INTO detections (recording_id) VALUES (999999)').run();
    })).toThrow();
    batch.commit();
    expect(q.db.prepare('SELECT path FROM ingested_files').pluck().all()).toEqual(['/input/rec-0.csv']);

    batch.begin();
    enqueueFile(q, 1);
    batch.rollback();
    expect(q.db.prepare('SELECT COUNT(*) FROM ingested_files').pluck().get()).toBe(1);
    expect(queueCounts(q).detections.pending).toBe(3);
  });
});
