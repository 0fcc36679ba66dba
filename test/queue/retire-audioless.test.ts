import { afterEach, describe, expect, it } from 'vitest';
import { claimDetections, enqueueRecording, getItem, queueCounts } from '../../src/queue/index.js';
import { AUDIOLESS_CODE, retireAudiolessRecordings } from '../../src/queue/retire-audioless.js';
import { recording, tempQueue } from './helpers.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('retireAudiolessRecordings', () => {
  it('retires recordings queued without audio once their time is up, with the reason, and frees their detections', () => {
    const t = tempQueue();
    cleanup = t.cleanup;
    const { q } = t;
    const det = { timestamp: '2025-06-01T12:00:00.000+02:00', startS: 0, endS: 3, scientificName: 'Pica pica', commonName: 'Eurasian Magpie', confidence: 0.9, lat: null, lon: null };
    const noAudio = enqueueRecording(q, { recording: recording(1, { spoolPath: null, audioFormat: null }), detections: [{ ...det, dedupeKey: 'a' }] }, { now: 1_000 });
    const withAudio = enqueueRecording(q, { recording: recording(2), detections: [{ ...det, dedupeKey: 'b' }] }, { now: 1_000 });

    expect(retireAudiolessRecordings(q, 500, 2_000)).toBe(0);
    expect(retireAudiolessRecordings(q, 1_000, 2_000)).toBe(1);
    const retired = getItem(q, 'recording', noAudio.recordingId!)!;
    expect(retired.state).toBe('dropped');
    expect(retired.lastErrorCode).toBe(AUDIOLESS_CODE);
    expect(retired.lastError).toContain('disk.minFreeMb');
    expect(getItem(q, 'recording', withAudio.recordingId!)!.state).toBe('pending');
    expect(queueCounts(q).recordings.dropped).toBe(1);

    // Its detection goes now, without a soundscape, without waiting for the no-audio delay.
    const claimed = claimDetections(q, { now: 2_000, limit: 10, order: 'oldest', noAudioAfterMs: 1e12 });
    expect(claimed.map((d) => d.dedupeKey)).toEqual(['a']);
    expect(claimed[0].soundscapeRemoteId).toBeNull();
  });
});
