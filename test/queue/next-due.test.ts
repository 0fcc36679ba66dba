import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimDetections } from '../../src/queue/claim-detections.js';
import { claimRecordings } from '../../src/queue/claim-recordings.js';
import type { Queue } from '../../src/queue/db.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { markRetry } from '../../src/queue/mark-retry.js';
import { nextDueAt } from '../../src/queue/next-due.js';
import { detection, recording, tempQueue } from './helpers.js';

let q: Queue;
let cleanup: () => void;
beforeEach(() => ({ q, cleanup } = tempQueue()));
afterEach(() => cleanup());

const T = 1_714_536_000_000;

describe('nextDueAt', () => {
  it('is the earliest backoff end after now among items a claim could take', () => {
    expect(nextDueAt(q, T)).toBeNull();
    enqueueRecording(q, { recording: recording(1), detections: [detection('a', 0)] }, { now: T });
    enqueueRecording(q, { recording: null, detections: [detection('s', 0)] }, { now: T });
    // Due now is not "after now".
    expect(nextDueAt(q, T)).toBeNull();
    const [r] = claimRecordings(q, { now: T, limit: 1, order: 'oldest' });
    markRetry(q, 'recording', r.id, { error: '503', code: 'ERR_HTTP_STATUS', nextAttemptAt: T + 60_000 });
    const [d] = claimDetections(q, { now: T, limit: 1, order: 'oldest' });
    markRetry(q, 'detection', d.id, { error: '503', code: 'ERR_HTTP_STATUS', nextAttemptAt: T + 30_000 });
    expect(nextDueAt(q, T)).toBe(T + 30_000);
    expect(nextDueAt(q, T + 30_000)).toBe(T + 60_000);
    // A WAV is the uploader's too (it encodes it into memory before the claim).
    enqueueRecording(q, { recording: recording(2, { spoolPath: '/s/2.wav', audioFormat: 'wav' }), detections: [] }, { now: T + 10_000 });
    expect(nextDueAt(q, T)).toBe(T + 10_000);
    // A recording without audio is nobody's.
    enqueueRecording(q, { recording: recording(3, { spoolPath: null, audioFormat: null }), detections: [] }, { now: T + 5_000 });
    expect(nextDueAt(q, T)).toBe(T + 10_000);
  });

  it('counts a detection whose soundscape waits: due when noAudioAfterMs since it was queued has passed', () => {
    // A recording without audio (the disk was low), and one with audio the link holds back.
    enqueueRecording(q, { recording: recording(1, { spoolPath: null }), detections: [detection('noaudio', 0)] }, { now: T });
    enqueueRecording(q, { recording: recording(2), detections: [detection('held', 0)] }, { now: T - 30_000 });
    expect(nextDueAt(q, T + 1_000, { noAudioAfterMs: 60_000 })).toBe(T + 60_000);
    // The link holds audio: the other detection is due at its own time, 30 s earlier.
    expect(nextDueAt(q, T + 1_000, { noAudioAfterMs: 60_000, audioHeld: true })).toBe(T + 30_000);
    expect(nextDueAt(q, T + 30_000, { noAudioAfterMs: 60_000, audioHeld: true })).toBe(T + 60_000);
    // Audio withheld for good: nothing to wait for, both are due now (not after now).
    expect(nextDueAt(q, T + 1_000, { noAudioAfterMs: 60_000, audioWithheld: true })).toBeNull();
    // A claim at that time takes them: next-due and the claim agree.
    expect(claimDetections(q, { now: T + 30_000, limit: 5, order: 'oldest', noAudioAfterMs: 60_000, audioHeld: true })).toHaveLength(1);
    expect(claimDetections(q, { now: T + 60_000, limit: 5, order: 'oldest', noAudioAfterMs: 60_000, audioHeld: true })).toHaveLength(1);
  });
});
