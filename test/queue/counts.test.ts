import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimDetections } from '../../src/queue/claim-detections.js';
import { claimRecordings } from '../../src/queue/claim-recordings.js';
import type { Queue } from '../../src/queue/db.js';
import { dropItems } from '../../src/queue/drop-items.js';
import { enqueueMany, enqueueRecording, type EnqueueInput } from '../../src/queue/enqueue.js';
import { queueCounts } from '../../src/queue/counts.js';
import { listItems } from '../../src/queue/list-items.js';
import { markUploaded } from '../../src/queue/mark-uploaded.js';
import { countTable, recountStates } from '../../src/queue/state-counts.js';
import { transitionWhere } from '../../src/queue/state.js';
import { detection, recording, tempQueue } from './helpers.js';

let q: Queue;
let cleanup: () => void;
beforeEach(() => ({ q, cleanup } = tempQueue()));
afterEach(() => cleanup());

const T = 1_714_536_000_000;
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
  }, 120_000);
});
