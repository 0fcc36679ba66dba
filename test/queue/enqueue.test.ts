import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Queue } from '../../src/queue/db.js';
import { enqueueMany, enqueueRecording } from '../../src/queue/enqueue.js';
import { QueueError } from '../../src/queue/errors.js';
import { getItem } from '../../src/queue/get-item.js';
import { queueCounts } from '../../src/queue/counts.js';
import { detection, recording, tempQueue } from './helpers.js';

let q: Queue;
let cleanup: () => void;
beforeEach(() => ({ q, cleanup } = tempQueue()));
afterEach(() => cleanup());

describe('enqueueRecording', () => {
  it('queues a recording and its detections as pending, due at once', () => {
    const rec = recording(1);
    const now = 1_714_536_000_000;
    const result = enqueueRecording(q, { recording: rec, detections: [detection(rec.sourceKey, 0), detection(rec.sourceKey, 1)] }, { now });
    expect(result).toEqual({ recordingId: expect.any(Number), recordingInserted: true, detectionsInserted: 2, changed: [] });
    const stored = getItem(q, 'recording', result.recordingId!)!;
    expect(stored).toMatchObject({ ...rec, kind: 'recording', state: 'pending', attempts: 0, nextAttemptAt: now, createdAt: now, updatedAt: now, remoteId: null, holdReason: null, reconcile: false });
    const dets = q.db.prepare('SELECT id FROM detections WHERE recording_id = ? ORDER BY id').pluck().all(result.recordingId) as number[];
    expect(dets).toHaveLength(2);
    expect(getItem(q, 'detection', dets[1])).toMatchObject({ ...detection(rec.sourceKey, 1), recordingId: result.recordingId, state: 'pending' });
  });

  it('adds nothing when the same recording is ingested twice', () => {
    const rec = recording(1);
    const input = { recording: rec, detections: [detection(rec.sourceKey, 0), detection(rec.sourceKey, 1)] };
    const first = enqueueRecording(q, input);
    const second = enqueueRecording(q, input);
    expect(second).toEqual({ recordingId: first.recordingId, recordingInserted: false, detectionsInserted: 0, changed: [] });
    const counts = queueCounts(q);
    expect(counts.recordings.pending).toBe(1);
    expect(counts.detections.pending).toBe(2);
  });

  it('attaches new detections to an already queued recording', () => {
    const rec = recording(1);
    const first = enqueueRecording(q, { recording: rec, detections: [detection(rec.sourceKey, 0)] });
    const second = enqueueRecording(q, { recording: rec, detections: [detection(rec.sourceKey, 0), detection(rec.sourceKey, 1)] });
    expect(second).toEqual({ recordingId: first.recordingId, recordingInserted: false, detectionsInserted: 1, changed: [] });
    expect(q.db.prepare('SELECT COUNT(*) FROM detections WHERE recording_id = ?').pluck().get(first.recordingId)).toBe(2);
  });

  it('queues detections without a recording', () => {
    const result = enqueueRecording(q, { recording: null, detections: [detection('standalone', 0)] });
    expect(result).toEqual({ recordingId: null, recordingInserted: false, detectionsInserted: 1, changed: [] });
    expect(q.db.prepare('SELECT recording_id FROM detections').pluck().get()).toBeNull();
  });

  it('rolls the whole call back when one detection is invalid', () => {
    const rec = recording(1);
    const bad = detection(rec.sourceKey, 1, { timestamp: 'yesterday' });
    expect(() => enqueueRecording(q, { recording: rec, detections: [detection(rec.sourceKey, 0), bad] })).toThrow(
      expect.objectContaining({ code: 'ERR_QUEUE_INVALID', message: expect.stringContaining(bad.dedupeKey) }),
    );
    expect(queueCounts(q).recordings.pending).toBe(0);
    expect(queueCounts(q).detections.pending).toBe(0);
  });

  it('refuses an empty key and values the schema forbids', () => {
    expect(() => enqueueRecording(q, { recording: recording(1, { sourceKey: '' }), detections: [] })).toThrow(QueueError);
    expect(() => enqueueRecording(q, { recording: recording(2, { audioFormat: 'mp3' as never }), detections: [] })).toThrow(/CHECK constraint/);
  });
});

describe('enqueueMany', () => {
  it('queues a batch in one transaction, results in input order, idempotent', () => {
    const inputs = Array.from({ length: 50 }, (_, i) => {
      const rec = recording(i);
      return { recording: rec, detections: [detection(rec.sourceKey, 0), detection(rec.sourceKey, 1), detection(rec.sourceKey, 2)] };
    });
    const results = enqueueMany(q, inputs);
    expect(results).toHaveLength(50);
    expect(results.every((r) => r.recordingInserted && r.detectionsInserted === 3)).toBe(true);
    expect(new Set(results.map((r) => r.recordingId)).size).toBe(50);
    expect(getItem(q, 'recording', results[7].recordingId!)!.sourceKey).toBe(inputs[7].recording.sourceKey);

    const again = enqueueMany(q, [...inputs, { recording: recording(99), detections: [] }]);
    expect(again.filter((r) => r.recordingInserted)).toHaveLength(1);
    expect(again.reduce((sum, r) => sum + r.detectionsInserted, 0)).toBe(0);
    expect(queueCounts(q).detections.pending).toBe(150);
  });

  it('commits nothing of a batch that fails', () => {
    const inputs = [{ recording: recording(1), detections: [] }, { recording: recording(2, { timestamp: 'not a time' }), detections: [] }];
    expect(() => enqueueMany(q, inputs)).toThrow(/recording rec-2/);
    expect(queueCounts(q).recordings.pending).toBe(0);
  });
});
