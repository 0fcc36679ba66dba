import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Queue } from '../../src/queue/db.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { QueueError } from '../../src/queue/errors.js';
import { queueCounts } from '../../src/queue/counts.js';
import { OuterTransaction } from '../../src/queue/transaction.js';
import { WriteBatch } from '../../src/queue/write-batch.js';
import { detection, tempQueue } from './helpers.js';

let q: Queue;
let cleanup: () => void;
beforeEach(() => ({ q, cleanup } = tempQueue()));
afterEach(() => cleanup());

const enqueueOne = (key: string) => enqueueRecording(q, { recording: null, detections: [detection(key, 0)] });

describe('the outer transaction (group commit and write batch)', () => {
  it('says whether a commit wrote, and undoes everything when its function throws', () => {
    expect(OuterTransaction.run(q, 'a test', () => 1)).toEqual({ value: 1, wrote: false });
    expect(OuterTransaction.run(q, 'a test', () => enqueueOne('a')).wrote).toBe(true);
    expect(() =>
      OuterTransaction.run(q, 'a test', () => {
        enqueueOne('b');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(queueCounts(q).detections.pending).toBe(1);
  });

  it('refuses to begin inside another transaction, for the group commit and the write batch alike', () => {
    expect(() => q.write(() => OuterTransaction.run(q, 'a group commit', () => enqueueOne('c')))).toThrow(QueueError);
    const batch = new WriteBatch(q, { maxRows: 10, maxMs: 1_000 });
    expect(() => q.write(() => batch.begin())).toThrow(/a write batch cannot begin inside another transaction/);
    expect(queueCounts(q).detections.pending).toBe(0);
  });
});
