import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimDetections } from '../../src/queue/claim-detections.js';
import { claimEncoded, claimRecordings } from '../../src/queue/claim-recordings.js';
import type { Queue } from '../../src/queue/db.js';
import { compactionCandidates, wavRecordingsDue } from '../../src/queue/encoding.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { getItem } from '../../src/queue/get-item.js';
import { hold, releaseHolds } from '../../src/queue/hold.js';
import { markFailed, markUnencodable } from '../../src/queue/mark-failed.js';
import { markRetry } from '../../src/queue/mark-retry.js';
import { markUnknown } from '../../src/queue/mark-unknown.js';
import { markUploaded } from '../../src/queue/mark-uploaded.js';
import { dropItems } from '../../src/queue/drop-items.js';
import { replaceWithFlac } from '../../src/queue/replace-audio.js';
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
    expect(releaseHolds(q, 'recording', { reason: 'clock' }).length).toBe(1);
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

describe('encoding is not a state', () => {
  const wav = (n: number, filesize = 2_880_044) => ({ spoolPath: `/spool/rec-${n}.wav`, audioFormat: 'wav' as const, filesize });

  it('a due WAV is read for encoding, not claimed, and claimed by id and spool file once encoded', () => {
    const { recordingId } = add(1, T, wav(1));
    add(2, T); // FLAC already: claimed directly, not read for encoding
    add(3, T, wav(3, 40_000_000)); // too large for memory
    const due = wavRecordingsDue(q, { now: T, limit: 5, order: 'oldest', maxBytes: 8 * 1024 * 1024 });
    expect(due).toEqual([{ id: recordingId, spoolPath: '/spool/rec-1.wav', filesize: 2_880_044, queued: null, reconcile: false, createdAt: T }]);
    // Reading changed nothing: still pending, and FLAC claims do not take it.
    expect(getItem(q, 'recording', recordingId)!.state).toBe('pending');
    expect(claimRecordings(q, { now: T, limit: 5, order: 'oldest' }).map((r) => r.spoolPath)).toEqual(['/spool/rec-2.flac']);
    expect(wavRecordingsDue(q, { now: T, limit: 5, order: 'oldest', maxBytes: 8 * 1024 * 1024, exclude: [recordingId] })).toEqual([]);

    // A claim for another spool file (compacted meanwhile) takes nothing.
    expect(claimEncoded(q, { now: T, items: [{ id: recordingId, spoolPath: '/spool/other.wav' }] })).toEqual([]);
    const [claimed] = claimEncoded(q, { now: T, items: [{ id: recordingId, spoolPath: '/spool/rec-1.wav' }] });
    expect(claimed).toMatchObject({ id: recordingId, state: 'sending', reconcile: false, audioFormat: 'wav' });
    expect(claimEncoded(q, { now: T, items: [{ id: recordingId, spoolPath: '/spool/rec-1.wav' }] })).toEqual([]);
  });

  it('an unknown WAV is read first and claimed to be reconciled; a held or dropped one is not claimed', () => {
    const a = add(1, T, wav(1)).recordingId;
    const b = add(2, T, wav(2)).recordingId;
    const c = add(3, T, wav(3)).recordingId;
    claimEncoded(q, { now: T, items: [{ id: b, spoolPath: '/spool/rec-2.wav' }] });
    markUnknown(q, 'recording', b, { error: 'timeout', code: 'ERR_OUTCOME_UNKNOWN', nextAttemptAt: T });
    expect(wavRecordingsDue(q, { now: T, limit: 5, order: 'oldest', maxBytes: 1e9 }).map((r) => [r.id, r.reconcile])).toEqual([[b, true], [a, false], [c, false]]);
    hold(q, 'recording', [a], 'implausible-time');
    dropItems(q, [{ kind: 'recording', id: c }]);
    const claimed = claimEncoded(q, {
      now: T,
      items: [a, b, c].map((id) => ({ id, spoolPath: `/spool/rec-${id}.wav` })),
    });
    expect(claimed.map((r) => [r.id, r.reconcile])).toEqual([[b, true]]);
  });

  it('audio that cannot be encoded fails a pending recording before any request, and frees its detections', () => {
    const { recordingId, detectionIds } = add(1, T, wav(1));
    expect(markUnencodable(q, recordingId, '/spool/other.wav', { error: 'x', code: 'ERR_AUDIO_INVALID' })).toBe(false);
    expect(markUnencodable(q, recordingId, '/spool/rec-1.wav', { error: 'not a RIFF file', code: 'ERR_AUDIO_INVALID', now: T })).toBe(true);
    expect(getItem(q, 'recording', recordingId)).toMatchObject({ state: 'failed', previousState: 'pending', attempts: 1, lastErrorCode: 'ERR_AUDIO_INVALID' });
    expect(claimDetections(q, { now: T, limit: 5, order: 'oldest' }).map((d) => [d.id, d.soundscapeRemoteId])).toEqual([[detectionIds[0], null]]);
  });

  it('the spool compaction swaps a waiting WAV for its FLAC without a state change, never under a claim', () => {
    const old = add(1, T - 20 * MIN, wav(1)).recordingId;
    const large = add(2, T, wav(2, 40_000_000)).recordingId;
    add(3, T, wav(3)); // recent and small: encoded into memory at upload time
    const candidates = compactionCandidates(q, { limit: 10, afterId: 0, maxInMemoryBytes: 8 * 1024 * 1024, queuedBefore: T - 15 * MIN });
    expect(candidates.map((c) => c.id)).toEqual([old, large]);
    expect(compactionCandidates(q, { limit: 10, afterId: old, maxInMemoryBytes: 8 * 1024 * 1024, queuedBefore: null }).map((c) => c.id)).toEqual([large]);

    const flac = { spoolPath: '/spool/rec-1.flac', filesize: 1_100_000, durationS: 15, sampleRate: 48_000 };
    expect(replaceWithFlac(q, old, '/spool/rec-1.wav', flac, { now: T })).toBe(true);
    expect(getItem(q, 'recording', old)).toMatchObject({ state: 'pending', audioFormat: 'flac', spoolPath: '/spool/rec-1.flac', filesize: 1_100_000 });
    expect(claimRecordings(q, { now: T, limit: 5, order: 'oldest' }).map((r) => r.id)).toEqual([old]);
    // Claimed meanwhile (sent from memory): the compaction's FLAC does not replace anything.
    claimEncoded(q, { now: T, items: [{ id: large, spoolPath: '/spool/rec-2.wav' }] });
    expect(replaceWithFlac(q, large, '/spool/rec-2.wav', { ...flac, spoolPath: '/spool/rec-2.flac' })).toBe(false);
    expect(getItem(q, 'recording', large)).toMatchObject({ state: 'sending', spoolPath: '/spool/rec-2.wav' });
  });
});
