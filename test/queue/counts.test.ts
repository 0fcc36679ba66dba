import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/paths.js';
import { claimDetections } from '../../src/queue/claim-detections.js';
import { claimRecordings } from '../../src/queue/claim-recordings.js';
import { openQueue, Queue } from '../../src/queue/db.js';
import { dropItems } from '../../src/queue/drop-items.js';
import { enqueueMany, enqueueRecording, type EnqueueInput } from '../../src/queue/enqueue.js';
import { queueCounts } from '../../src/queue/counts.js';
import { listItems } from '../../src/queue/list-items.js';
import { markFailed } from '../../src/queue/mark-failed.js';
import { markUploaded } from '../../src/queue/mark-uploaded.js';
import { MIGRATIONS } from '../../src/queue/migrations.js';
import { retryItems } from '../../src/queue/retry-items.js';
import { countTable, recountStates } from '../../src/queue/state-counts.js';
import { transitionWhere } from '../../src/queue/state.js';
import { detection, recording, tempQueue } from './helpers.js';

let q: Queue;
let cleanup: () => void;
beforeEach(() => ({ q, cleanup } = tempQueue()));
afterEach(() => cleanup());

const T = 1_714_536_000_000;
const DAY = 86_400_000;
const EMPTY = { pending: 0, sending: 0, unknown: 0, uploaded: 0, failed: 0, dropped: 0 };

describe('queueCounts', () => {
  it('counts an empty queue', () => {
    expect(queueCounts(q)).toEqual({ recordings: EMPTY, detections: EMPTY, oldestPendingAt: null });
  });

  it('rebuilds drifted counts from the tables', () => {
    enqueueRecording(q, { recording: recording(1), detections: [detection('k', 0), detection('k', 1)] }, { now: T });
    q.db.exec(`UPDATE detections SET state = 'failed'`); // around the queue's functions
    expect(queueCounts(q).detections).toEqual({ ...EMPTY, pending: 2 });
    expect(recountStates(q)).toBe(true);
    expect(queueCounts(q).detections).toEqual({ ...EMPTY, failed: 2 });
    expect(recountStates(q)).toBe(false);
  });

  it('tracks the oldest waiting item across kinds and states', () => {
    enqueueRecording(q, { recording: recording(1), detections: [] }, { now: T + 10 });
    enqueueRecording(q, { recording: null, detections: [detection('s', 0)] }, { now: T + 20 });
    expect(queueCounts(q).oldestPendingAt).toBe(T + 10);
    const [r] = claimRecordings(q, { now: T + 10, limit: 1, order: 'oldest' });
    expect(queueCounts(q).oldestPendingAt).toBe(T + 10); // sending still waits
    markUploaded(q, 'recording', r.id, 1);
    expect(queueCounts(q).oldestPendingAt).toBe(T + 20);
  });

  it('names the item queued first, not the one a clock set behind stamped earliest', () => {
    // A Pi that boots before NTP has its clock behind: the later item carries an earlier stamp.
    enqueueRecording(q, { recording: null, detections: [detection('a', 0)] }, { now: T });
    enqueueRecording(q, { recording: null, detections: [detection('b', 0)] }, { now: T - 30 * DAY });
    expect(queueCounts(q).oldestPendingAt).toBe(T);
  });

  it('moves on as the first items go, and back to an old item an operator retries', () => {
    enqueueRecording(q, { recording: null, detections: [detection('a', 0), detection('a', 1)] }, { now: T });
    enqueueRecording(q, { recording: null, detections: [detection('b', 0)] }, { now: T + 10 });
    enqueueRecording(q, { recording: null, detections: [detection('c', 0)] }, { now: T + 20 });
    const [d1, d2, d3] = claimDetections(q, { now: T + 20, limit: 3, order: 'oldest' });
    markFailed(q, 'detection', d1.id, { error: '422', code: 'ERR_SERVICE_REJECTED' });
    // Its sibling queued with it still waits.
    expect(queueCounts(q).oldestPendingAt).toBe(T);
    markUploaded(q, 'detection', d2.id, 1);
    expect(queueCounts(q).oldestPendingAt).toBe(T + 10);
    markUploaded(q, 'detection', d3.id, 2);
    expect(queueCounts(q).oldestPendingAt).toBe(T + 20);

    expect(retryItems(q, [{ kind: 'detection', id: d1.id }], { now: T + 25 }).retried).toHaveLength(1);
    expect(queueCounts(q).oldestPendingAt).toBe(T);
    const [d4, again] = claimDetections(q, { now: T + 30, limit: 2, order: 'oldest' });
    expect(again.id).toBe(d1.id);
    markUploaded(q, 'detection', d1.id, 3);
    expect(queueCounts(q).oldestPendingAt).toBe(T + 20);
    markUploaded(q, 'detection', d4.id, 4);
    expect(queueCounts(q).oldestPendingAt).toBeNull();
    expect(recountStates(q)).toBe(false);

    // The next item queued is the first waiting one.
    enqueueRecording(q, { recording: null, detections: [detection('d', 0)] }, { now: T + 40 });
    expect(queueCounts(q).oldestPendingAt).toBe(T + 40);
    expect(recountStates(q)).toBe(false);
  });

  it('finds the next waiting item past a long stretch of settled ones', () => {
    const many = Array.from({ length: 1_500 }, (_, i) => detection('many', i));
    enqueueRecording(q, { recording: null, detections: many }, { now: T });
    enqueueRecording(q, { recording: null, detections: [detection('late', 0)] }, { now: T + 50 });
    // The newest first: every item but the first and the last is uploaded.
    q.write(() => {
      for (const d of claimDetections(q, { now: T + 50, limit: 1_500, order: 'newest' }).filter((d) => d.id !== 1_501)) markUploaded(q, 'detection', d.id, d.id);
    });
    expect(queueCounts(q).detections).toMatchObject({ pending: 1, sending: 1, uploaded: 1_499 });
    expect(queueCounts(q).oldestPendingAt).toBe(T);
    const [first] = claimDetections(q, { now: T + 50, limit: 1, order: 'oldest' });
    expect(first.id).toBe(1);
    markUploaded(q, 'detection', first.id, 1);
    // More than the table window lies between the first and the next waiting item.
    expect(queueCounts(q).oldestPendingAt).toBe(T + 50);
    expect(recountStates(q)).toBe(false);
  });

  it('rebuilds a first waiting item that raw SQL moved', () => {
    enqueueRecording(q, { recording: null, detections: [detection('a', 0)] }, { now: T });
    enqueueRecording(q, { recording: null, detections: [detection('b', 0)] }, { now: T + 10 });
    q.db.exec(`UPDATE state_counts SET first_waiting_id = 2 WHERE kind = 'detection' AND state = 'pending'`);
    expect(queueCounts(q).oldestPendingAt).toBe(T + 10);
    expect(recountStates(q)).toBe(true);
    expect(queueCounts(q).oldestPendingAt).toBe(T);
  });

  it('is correct on a queue of 1,000,000 detections', () => {
    const CHUNK = 50_000;
    const TOTAL = 1_000_000;
    for (let chunk = 0; chunk < TOTAL / CHUNK; chunk++) {
      const inputs: EnqueueInput[] = [];
      for (let i = 0; i < CHUNK; i += 1_000) {
        inputs.push({
          recording: null,
          detections: Array.from({ length: 1_000 }, (_, j) => detection(`${chunk}-${i + j}`, 0, { dedupeKey: `${chunk}-${i + j}` })),
        });
      }
      enqueueMany(q, inputs, { now: T + chunk });
    }
    for (let n = 0; n < 100; n++) enqueueRecording(q, { recording: recording(n), detections: [] }, { now: T + 5 });

    // Spread over the states through the real claim and batch transitions.
    expect(claimDetections(q, { now: T + 100, limit: 3_000, order: 'oldest' })).toHaveLength(3_000);
    expect(transitionWhere(q, 'detection', 'uploaded', { where: 'id <= 1000', patch: { remoteId: 1 } })).toHaveLength(1_000);
    expect(transitionWhere(q, 'detection', 'failed', { where: 'id > 1000 AND id <= 1500' })).toHaveLength(500);
    expect(transitionWhere(q, 'detection', 'unknown', { where: 'id > 1500 AND id <= 1600' })).toHaveLength(100);
    expect(dropItems(q, [{ kind: 'detection', id: 1500 }, { kind: 'detection', id: 999_999 }]).dropped).toHaveLength(2);
    claimRecordings(q, { now: T + 100, limit: 40, order: 'oldest' });

    const expected = {
      recordings: { ...EMPTY, pending: 60, sending: 40 },
      detections: { pending: 996_999, sending: 1_400, unknown: 100, uploaded: 1_000, failed: 499, dropped: 2 },
      // The oldest waiting detection is 1,501 (unknown), queued with the first chunk.
      oldestPendingAt: T,
    };
    expect(queueCounts(q)).toEqual(expected);
    // The kept counts equal a count of the tables.
    expect(countTable(q, 'detection')).toEqual(expected.detections);
    expect(countTable(q, 'recording')).toEqual(expected.recordings);
    expect(recountStates(q)).toBe(false);

    // Listing a crowded state walks ids; a rare one reads its index range.
    expect(listItems(q, { state: 'pending', kind: 'detection', limit: 2, afterId: 'd3000' }).items.map((i) => i.id)).toEqual([3001, 3002]);
    expect(listItems(q, { state: 'failed', limit: 2 }).items.map((i) => i.id)).toEqual([1001, 1002]);
    // A million rows seeded and counted: 71 to 82 s alone on a loaded 2-core machine, past
    // 120 s once beside other work.
  }, 360_000);
});

describe('migration 13 on a queue of version 12', () => {
  it('keeps the first waiting item of each kind as the tables hold it', () => {
    const t = tempDir('station-agent-queue-m13-');
    try {
      const file = path.join(t.dir, 'queue.db');
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.transaction(() => {
        for (const m of MIGRATIONS.slice(0, 12)) {
          m.up(db);
          db.pragma(`user_version = ${m.version}`);
        }
      })();
      // As a version-12 agent left them: three detections queued, the first one uploaded since; no recording.
      enqueueRecording(new Queue(db, file), { recording: null, detections: [detection('a', 0), detection('a', 1), detection('a', 2)] }, { now: T });
      db.exec(`UPDATE detections SET state = 'uploaded', waiting = 0, remote_id = 7, created_at = ${T - 10} WHERE id = 1`);
      db.exec(`UPDATE detections SET created_at = ${T + 5} WHERE id = 2`);
      db.exec(`UPDATE state_counts SET n = CASE state WHEN 'pending' THEN 2 WHEN 'uploaded' THEN 1 ELSE 0 END WHERE kind = 'detection'`);
      db.close();

      const migrated = openQueue(file);
      try {
        expect(migrated.db.prepare(`SELECT kind, first_waiting_id FROM state_counts WHERE state = 'pending' ORDER BY kind`).all()).toEqual([
          { kind: 'detection', first_waiting_id: 2 },
          { kind: 'recording', first_waiting_id: 1 },
        ]);
        expect(queueCounts(migrated).oldestPendingAt).toBe(T + 5);
        expect(recountStates(migrated)).toBe(false);
        // The first recording queued after the migration is the first waiting one.
        enqueueRecording(migrated, { recording: recording(1), detections: [] }, { now: T + 1 });
        expect(queueCounts(migrated).oldestPendingAt).toBe(T + 1);
      } finally {
        migrated.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
