import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimDetections } from '../../src/queue/claim-detections.js';
import { claimRecordings } from '../../src/queue/claim-recordings.js';
import type { Queue } from '../../src/queue/db.js';
import { claimEncoded } from '../../src/queue/claim-recordings.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { QueueTransitionError } from '../../src/queue/errors.js';
import { getItem } from '../../src/queue/get-item.js';
import { markFailed } from '../../src/queue/mark-failed.js';
import { markRetry } from '../../src/queue/mark-retry.js';
import { markUnknown } from '../../src/queue/mark-unknown.js';
import { markUploaded } from '../../src/queue/mark-uploaded.js';
import { INTERRUPTED_CODE, recoverInFlight } from '../../src/queue/recover.js';
import { isRemoteIdTaken } from '../../src/queue/remote-ids.js';
import { detection, recording, tempQueue } from './helpers.js';

let q: Queue;
let cleanup: () => void;
beforeEach(() => ({ q, cleanup } = tempQueue()));
afterEach(() => cleanup());

const T = 1_714_536_000_000;

function claimedRecording(n = 1): number {
  enqueueRecording(q, { recording: recording(n), detections: [] }, { now: T });
  const [r] = claimRecordings(q, { now: T, limit: 1, order: 'oldest' });
  return r.id;
}

describe('marking a claimed item', () => {
  it('markUploaded stores the service id (beyond 2^31) and refuses an item not being sent', () => {
    const id = claimedRecording();
    const remoteId = 2 ** 40 + 3;
    markUploaded(q, 'recording', id, remoteId, { now: T + 1 });
    expect(getItem(q, 'recording', id)).toMatchObject({ state: 'uploaded', remoteId, updatedAt: T + 1 });
    expect(isRemoteIdTaken(q, 'recording', remoteId)).toBe(true);
    expect(isRemoteIdTaken(q, 'detection', remoteId)).toBe(false);
    expect(() => markUploaded(q, 'recording', id, remoteId)).toThrow(QueueTransitionError);
    expect(() => markUploaded(q, 'recording', id, 0)).toThrow(/positive integer/);
  });

  it('markRetry counts the attempt, keeps the error, and schedules the next attempt', () => {
    const id = claimedRecording();
    const item = markRetry(q, 'recording', id, { error: 'HTTP 503 Service Unavailable', code: 'ERR_HTTP_STATUS', nextAttemptAt: T + 30_000 });
    expect(item).toMatchObject({ state: 'pending', attempts: 1, lastError: 'HTTP 503 Service Unavailable', lastErrorCode: 'ERR_HTTP_STATUS', nextAttemptAt: T + 30_000 });
    expect(claimRecordings(q, { now: T + 29_999, limit: 1, order: 'oldest' })).toEqual([]);
    expect(claimRecordings(q, { now: T + 30_000, limit: 1, order: 'oldest' })).toHaveLength(1);
    expect(markRetry(q, 'recording', id, { error: 'again', code: 'ERR_NETWORK_BEFORE_SEND', nextAttemptAt: T + 90_000 }).attempts).toBe(2);
  });

  it('markRetry of a reconciliation goes back to unknown: the earlier send may still have arrived', () => {
    const id = claimedRecording();
    markUnknown(q, 'recording', id, { error: 'timeout', code: 'ERR_OUTCOME_UNKNOWN', now: T });
    const [again] = claimRecordings(q, { now: T, limit: 1, order: 'oldest' });
    expect(again.reconcile).toBe(true);
    const item = markRetry(q, 'recording', id, { error: 'lookup failed', code: 'ERR_NETWORK_BEFORE_SEND', nextAttemptAt: T + 1_000 });
    expect(item).toMatchObject({ state: 'unknown', attempts: 2 });
    expect(claimRecordings(q, { now: T + 1_000, limit: 1, order: 'oldest' })[0].reconcile).toBe(true);
  });

  it('markUnknown and markFailed count the attempt and keep the error', () => {
    const a = claimedRecording(1);
    expect(markUnknown(q, 'recording', a, { error: 'socket hang up', code: 'ERR_OUTCOME_UNKNOWN', nextAttemptAt: T + 5_000 })).toMatchObject({
      state: 'unknown',
      attempts: 1,
      lastError: 'socket hang up',
      nextAttemptAt: T + 5_000,
    });
    const b = claimedRecording(2);
    expect(markFailed(q, 'recording', b, { error: 'HTTP 422: invalid audio', code: 'ERR_HTTP_STATUS' })).toMatchObject({ state: 'failed', attempts: 1, lastErrorCode: 'ERR_HTTP_STATUS' });
    expect(() => markFailed(q, 'recording', b, { error: 'x', code: 'y' })).toThrow(/from failed to failed/);
  });
});

describe('recoverInFlight', () => {
  it('makes every sending item unknown, a WAV sent from memory too (encoding is not a state)', () => {
    enqueueRecording(q, { recording: recording(1), detections: [] }, { now: T });
    enqueueRecording(q, { recording: recording(2, { spoolPath: '/spool/rec-2.wav', audioFormat: 'wav' }), detections: [] }, { now: T });
    enqueueRecording(q, { recording: null, detections: [detection('s', 0), detection('s', 1)] }, { now: T });
    const [uploading] = claimRecordings(q, { now: T, limit: 5, order: 'oldest' });
    const [fromMemory] = claimEncoded(q, { now: T, items: [{ id: 2, spoolPath: '/spool/rec-2.wav' }] });
    const detections = claimDetections(q, { now: T, limit: 1, order: 'oldest' });
    expect(detections).toHaveLength(1);

    expect(recoverInFlight(q, { now: T + 1 })).toEqual({ recordings: 2, detections: 1 });
    expect(getItem(q, 'recording', uploading.id)).toMatchObject({ state: 'unknown', lastErrorCode: INTERRUPTED_CODE, updatedAt: T + 1 });
    expect(getItem(q, 'recording', fromMemory.id)).toMatchObject({ state: 'unknown', lastErrorCode: INTERRUPTED_CODE });
    expect(getItem(q, 'detection', detections[0].id)!.state).toBe('unknown');
    // The other detection was never claimed: untouched.
    expect(q.db.prepare(`SELECT COUNT(*) FROM detections WHERE state = 'pending'`).pluck().get()).toBe(1);
    // The next claim reconciles.
    expect(claimRecordings(q, { now: T + 1, limit: 5, order: 'oldest' }).map((r) => [r.id, r.reconcile])).toEqual([[uploading.id, true]]);
    // A later recovery finds only what was claimed since.
    expect(recoverInFlight(q)).toEqual({ recordings: 1, detections: 0 });
  });
});
