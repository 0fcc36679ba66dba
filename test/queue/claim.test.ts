import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimDetections } from '../../src/queue/claim-detections.js';
import { claimRecordings } from '../../src/queue/claim-recordings.js';
import type { Queue } from '../../src/queue/db.js';
import { claimForEncoding, markEncoded } from '../../src/queue/encoding.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { getItem } from '../../src/queue/get-item.js';
import { hold, release } from '../../src/queue/hold.js';
import { markFailed } from '../../src/queue/mark-failed.js';
import { markRetry } from '../../src/queue/mark-retry.js';
import { markUnknown } from '../../src/queue/mark-unknown.js';
import { markUploaded } from '../../src/queue/mark-uploaded.js';
import { dropItems } from '../../src/queue/drop-items.js';
import type { NewRecording } from '../../src/queue/types.js';
import { detection, recording, tempQueue } from './helpers.js';

let q: Queue;
let cleanup: () => void;
beforeEach(() => ({ q, cleanup } = tempQueue()));
afterEach(() => cleanup());

const T = 1_714_536_000_000;
const MIN = 60_000;

function add(n: number, at: number, overrides: Partial<NewRecording> = {}, detections = 1): { recordingId: number; detectionIds: number[] } {
  const rec = recording(n, overrides);
  const { recordingId } = enqueueRecording(
    q,
    { recording: rec, detections: Array.from({ length: detections }, (_, i) => detection(rec.sourceKey, i)) },
    { now: at },
  );
  const detectionIds = q.db.prepare('SELECT id FROM detections WHERE recording_id = ? ORDER BY id').pluck().all(recordingId) as number[];
  return { recordingId: recordingId!, detectionIds };
}

describe('claimRecordings', () => {
  it('claims due FLAC recordings in the order asked, and moves them to sending', () => {
    const ids = [1, 2, 3, 4].map((n) => add(n, T + n * MIN).recordingId);
    const oldest = claimRecordings(q, { now: T + 10 * MIN, limit: 2, order: 'oldest' });
    expect(oldest.map((r) => r.id)).toEqual([ids[0], ids[1]]);
    expect(oldest.every((r) => r.state === 'sending' && r.reconcile === false)).toBe(true);
    expect(getItem(q, 'recording', ids[0])!.state).toBe('sending');

    const newest = claimRecordings(q, { now: T + 10 * MIN, limit: 1, order: 'newest' });
    expect(newest.map((r) => r.id)).toEqual([ids[3]]);
    // Already claimed items are not claimed again.
    expect(claimRecordings(q, { now: T + 10 * MIN, limit: 10, order: 'oldest' }).map((r) => r.id)).toEqual([ids[2]]);
    expect(claimRecordings(q, { now: T + 10 * MIN, limit: 10, order: 'oldest' })).toEqual([]);
  });

  it('skips items not yet due, held, without audio, or still WAV', () => {
    const due = add(1, T).recordingId;
    add(2, T + 5 * MIN); // not due yet
    const held = add(3, T).recordingId;
    add(4, T, { spoolPath: null, audioFormat: null });
    add(5, T, { spoolPath: '/spool/rec-5.wav', audioFormat: 'wav' });
    expect(hold(q, 'recording', [held], 'clock')).toBe(1);
    expect(claimRecordings(q, { now: T + MIN, limit: 10, order: 'oldest' }).map((r) => r.id)).toEqual([due]);
    expect(release(q, 'recording', { reason: 'clock' })).toBe(1);
    expect(claimRecordings(q, { now: T + MIN, limit: 10, order: 'oldest' }).map((r) => r.id)).toEqual([held]);
  });

  it('claims unknown items first, flagged for reconciliation', () => {
    const a = add(1, T).recordingId;
    const b = add(2, T + MIN).recordingId;
    claimRecordings(q, { now: T, limit: 1, order: 'oldest' });
    markUnknown(q, 'recording', a, { error: 'timeout after send', code: 'ERR_OUTCOME_UNKNOWN', nextAttemptAt: T + 2 * MIN });
    // Not before its reconcile time.
    expect(claimRecordings(q, { now: T + MIN, limit: 1, order: 'oldest' }).map((r) => [r.id, r.reconcile])).toEqual([[b, false]]);
    markRetry(q, 'recording', b, { error: '503', code: 'ERR_HTTP_STATUS', nextAttemptAt: T + 2 * MIN });
    const claimed = claimRecordings(q, { now: T + 3 * MIN, limit: 2, order: 'newest' });
    expect(claimed.map((r) => [r.id, r.reconcile])).toEqual([
      [a, true],
      [b, false],
    ]);
    expect(getItem(q, 'recording', a)!.attempts).toBe(1);
  });

  it('refuses a bad limit or order', () => {
    expect(() => claimRecordings(q, { limit: 0, order: 'oldest' })).toThrow(/positive integer/);
    expect(() => claimRecordings(q, { limit: 1, order: 'random' as never })).toThrow(/newest' or 'oldest/);
  });
});

describe('claimDetections', () => {
  it('waits for the recording to be uploaded, then carries the soundscape id and start', () => {
    const { recordingId, detectionIds } = add(1, T, {}, 2);
    expect(claimDetections(q, { now: T + MIN, limit: 10, order: 'oldest' })).toEqual([]);
    claimRecordings(q, { now: T + MIN, limit: 10, order: 'oldest' });
    // Still waiting while the recording is being sent.
    expect(claimDetections(q, { now: T + MIN, limit: 10, order: 'oldest' })).toEqual([]);
    markUploaded(q, 'recording', recordingId, 4_294_967_296 + 7);

    const claimed = claimDetections(q, { now: T + 2 * MIN, limit: 10, order: 'oldest' });
    expect(claimed.map((d) => d.id)).toEqual(detectionIds);
    expect(claimed[0]).toMatchObject({ state: 'sending', recordingId, soundscapeRemoteId: 4_294_967_303, recordingTimestamp: recording(1).timestamp, reconcile: false });
  });

  it('lets detections go without a soundscape when the recording failed or was dropped, or there is none', () => {
    const failed = add(1, T);
    const dropped = add(2, T);
    const waiting = add(3, T);
    enqueueRecording(q, { recording: null, detections: [detection('standalone', 0)] }, { now: T });
    const standalone = q.db.prepare('SELECT id FROM detections WHERE recording_id IS NULL').pluck().get() as number;

    claimRecordings(q, { now: T, limit: 1, order: 'oldest' });
    markFailed(q, 'recording', failed.recordingId, { error: 'HTTP 422', code: 'ERR_HTTP_STATUS' });
    dropItems(q, [{ kind: 'recording', id: dropped.recordingId }]);

    const claimed = claimDetections(q, { now: T + MIN, limit: 10, order: 'oldest' });
    expect(claimed.map((d) => d.id).sort((a, b) => a - b)).toEqual([failed.detectionIds[0], dropped.detectionIds[0], standalone].sort((a, b) => a - b));
    expect(claimed.every((d) => d.soundscapeRemoteId === null)).toBe(true);
    expect(claimed.find((d) => d.id === standalone)!.recordingTimestamp).toBeNull();
    expect(getItem(q, 'detection', waiting.detectionIds[0])!.state).toBe('pending');
  });

  it('lets a detection of a recording without audio go after noAudioAfterMs', () => {
    const { detectionIds } = add(1, T, { spoolPath: null, audioFormat: null });
    expect(claimDetections(q, { now: T + 9 * MIN, limit: 10, order: 'oldest', noAudioAfterMs: 10 * MIN })).toEqual([]);
    const claimed = claimDetections(q, { now: T + 10 * MIN, limit: 10, order: 'oldest', noAudioAfterMs: 10 * MIN });
    expect(claimed.map((d) => [d.id, d.soundscapeRemoteId])).toEqual([[detectionIds[0], null]]);
  });

  it('orders by due time, takes unknown first, and honours holds and backoff', () => {
    const ids = [1, 2, 3].map((n) => {
      enqueueRecording(q, { recording: null, detections: [detection(`s${n}`, 0)] }, { now: T + n * MIN });
      return q.db.prepare('SELECT MAX(id) FROM detections').pluck().get() as number;
    });
    expect(claimDetections(q, { now: T + 5 * MIN, limit: 1, order: 'newest' }).map((d) => d.id)).toEqual([ids[2]]);
    markUnknown(q, 'detection', ids[2], { error: 'reset', code: 'ERR_OUTCOME_UNKNOWN', now: T + 5 * MIN });
    hold(q, 'detection', [ids[0]], 'clock');
    const claimed = claimDetections(q, { now: T + 5 * MIN, limit: 5, order: 'oldest' });
    expect(claimed.map((d) => [d.id, d.reconcile])).toEqual([
      [ids[2], true],
      [ids[1], false],
    ]);
    markRetry(q, 'detection', ids[1], { error: 'HTTP 500', code: 'ERR_HTTP_STATUS', nextAttemptAt: T + 20 * MIN });
    expect(claimDetections(q, { now: T + 19 * MIN, limit: 5, order: 'oldest' })).toEqual([]);
    expect(claimDetections(q, { now: T + 20 * MIN, limit: 5, order: 'oldest' }).map((d) => d.id)).toEqual([ids[1]]);
  });
});

describe('encoding', () => {
  it('claims WAV recordings for encoding, and markEncoded makes them uploadable FLAC', () => {
    const { recordingId, detectionIds } = add(1, T, { spoolPath: '/spool/rec-1.wav', audioFormat: 'wav', filesize: 2_880_044 });
    add(2, T); // FLAC already: not for the encoder
    const claimed = claimForEncoding(q, { limit: 5, now: T });
    expect(claimed.map((r) => [r.id, r.state, r.spoolPath])).toEqual([[recordingId, 'sending', '/spool/rec-1.wav']]);
    expect(claimForEncoding(q, { limit: 5, now: T })).toEqual([]);

    const encoded = markEncoded(q, recordingId, { spoolPath: '/spool/rec-1.flac', filesize: 1_100_000, durationS: 15.0, sampleRate: 48_000 }, { now: T + 1 });
    expect(encoded).toMatchObject({ state: 'pending', audioFormat: 'flac', spoolPath: '/spool/rec-1.flac', filesize: 1_100_000, nextAttemptAt: T + 1, attempts: 0 });
    const uploadable = claimRecordings(q, { now: T + 1, limit: 5, order: 'oldest' }).map((r) => r.id);
    expect(uploadable).toContain(recordingId);
    // An upload claim is not an encoding claim.
    expect(() => markEncoded(q, recordingId, { spoolPath: '/x.flac', filesize: 1, durationS: 1, sampleRate: 1 })).toThrow(/not claimed for encoding/);
    expect(detectionIds).toHaveLength(1);
  });

  it('an encoding failure fails the recording and frees its detections', () => {
    const { recordingId, detectionIds } = add(1, T, { spoolPath: '/spool/rec-1.wav', audioFormat: 'wav' });
    claimForEncoding(q, { limit: 1, now: T });
    markFailed(q, 'recording', recordingId, { error: 'not a RIFF file', code: 'ERR_AUDIO_INVALID' });
    expect(claimDetections(q, { now: T, limit: 5, order: 'oldest' }).map((d) => [d.id, d.soundscapeRemoteId])).toEqual([[detectionIds[0], null]]);
  });
});
