import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attachAudio } from '../../src/queue/attach-audio.js';
import { claimDetections } from '../../src/queue/claim-detections.js';
import { claimRecordings } from '../../src/queue/claim-recordings.js';
import type { Queue } from '../../src/queue/db.js';
import { dropItems } from '../../src/queue/drop-items.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { getItem } from '../../src/queue/get-item.js';
import { markFailed } from '../../src/queue/mark-failed.js';
import { markUploaded } from '../../src/queue/mark-uploaded.js';
import { clearSpoolPath, spoolFilesToDelete, spoolUsage } from '../../src/queue/retention.js';
import { detection, recording, tempQueue } from './helpers.js';

let q: Queue;
let cleanup: () => void;
beforeEach(() => ({ q, cleanup } = tempQueue()));
afterEach(() => cleanup());

const T = 1_714_536_000_000;
const DAY = 86_400_000;

describe('spool retention', () => {
  it('offers only uploaded or dropped recordings, after the retention time, and never failed or waiting ones', () => {
    const ids = [1, 2, 3, 4, 5].map((n) => enqueueRecording(q, { recording: recording(n, { filesize: 100 * n }), detections: [] }, { now: T }).recordingId!);
    const claimed = claimRecordings(q, { now: T, limit: 3, order: 'oldest' }).map((r) => r.id);
    expect(claimed).toEqual(ids.slice(0, 3));
    markUploaded(q, 'recording', ids[0], 11, { now: T + DAY });
    markFailed(q, 'recording', ids[1], { error: 'HTTP 422', code: 'ERR_HTTP_STATUS', now: T + DAY });
    // ids[2] stays sending; ids[3] pending; ids[4] dropped.
    dropItems(q, [{ kind: 'recording', id: ids[4] }], { now: T + 2 * DAY });

    expect(spoolUsage(q)).toEqual({ files: 5, bytes: 1500 });
    expect(spoolFilesToDelete(q, { retentionMs: 7 * DAY, now: T + 7 * DAY, limit: 10 })).toEqual([]);
    expect(spoolFilesToDelete(q, { retentionMs: 7 * DAY, now: T + 8 * DAY, limit: 10 })).toEqual([{ recordingId: ids[0], spoolPath: '/spool/rec-1.flac', filesize: 100 }]);
    const due = spoolFilesToDelete(q, { retentionMs: 7 * DAY, now: T + 30 * DAY, limit: 10 });
    expect(due.map((f) => f.recordingId)).toEqual([ids[0], ids[4]]);

    expect(clearSpoolPath(q, ids[0])).toBe(true);
    expect(clearSpoolPath(q, ids[0])).toBe(false);
    // Never for a recording that is not uploaded or dropped.
    expect(clearSpoolPath(q, ids[1])).toBe(false);
    expect(clearSpoolPath(q, ids[3])).toBe(false);
    expect(getItem(q, 'recording', ids[1])!.spoolPath).toBe('/spool/rec-2.flac');
    expect(spoolUsage(q)).toEqual({ files: 4, bytes: 1400 });
    expect(spoolFilesToDelete(q, { retentionMs: 7 * DAY, now: T + 30 * DAY, limit: 10 }).map((f) => f.recordingId)).toEqual([ids[4]]);
  });
});

describe('attachAudio', () => {
  it('gives a pending recording without audio its spool file, once', () => {
    const { recordingId } = enqueueRecording(q, { recording: recording(1, { spoolPath: null, audioFormat: null, filesize: null }), detections: [detection('k', 0)] }, { now: T });
    expect(claimRecordings(q, { now: T, limit: 5, order: 'oldest' })).toEqual([]);
    expect(attachAudio(q, recordingId!, { spoolPath: '/spool/late.flac', audioFormat: 'flac', filesize: 321 })).toBe(true);
    expect(attachAudio(q, recordingId!, { spoolPath: '/spool/other.flac', audioFormat: 'flac', filesize: 1 })).toBe(false);
    expect(getItem(q, 'recording', recordingId!)).toMatchObject({ spoolPath: '/spool/late.flac', filesize: 321, durationS: 15 });
    // With audio the detection waits for the upload again, however long it has waited.
    expect(claimDetections(q, { now: T + DAY, limit: 5, order: 'oldest' })).toEqual([]);
    expect(claimRecordings(q, { now: T, limit: 5, order: 'oldest' }).map((r) => r.id)).toEqual([recordingId]);
  });
});
