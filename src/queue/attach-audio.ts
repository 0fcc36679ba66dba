import type { Queue } from './db.js';
import type { AudioFormat } from './types.js';
import { addToStateCounts } from './state-counts.js';

export interface AttachedAudio {
  spoolPath: string;
  audioFormat: AudioFormat;
  filesize: number;
  durationS?: number | null;
  sampleRate?: number | null;
}

/**
 * Gives a queued recording that has no audio its spool file, when the audio turns
 * up after the recording was queued (enqueueing it again would change nothing:
 * enqueue is idempotent). Only a `pending` recording without audio is changed; its
 * detections that already went without a soundscape stay as they are. Returns
 * whether the recording changed. Not a state change.
 */
export function attachAudio(q: Queue, recordingId: number, audio: AttachedAudio, options: { now?: number } = {}): boolean {
  return q.write(() => {
    const attached =
      q
        .stmt(
          `UPDATE recordings SET spool_path = @spool_path, audio_format = @audio_format, filesize = @filesize, ` +
            `duration_s = COALESCE(@duration_s, duration_s), sample_rate = COALESCE(@sample_rate, sample_rate), updated_at = @now ` +
            `WHERE id = @id AND state = 'pending' AND spool_path IS NULL`,
        )
        .run({
          id: recordingId,
          spool_path: audio.spoolPath,
          audio_format: audio.audioFormat,
          filesize: audio.filesize,
          duration_s: audio.durationS ?? null,
          sample_rate: audio.sampleRate ?? null,
          now: options.now ?? Date.now(),
        }).changes === 1;
    // A waiting recording's new spool file (waiting-spool.ts).
    if (attached) addToStateCounts(q, 'recording', {}, { files: 1, bytes: audio.filesize });
    return attached;
  });
}
